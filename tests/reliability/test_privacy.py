"""Secrets and privacy: keys never logged or returned, note text and prompts only at DEBUG, a
query log that can be turned off and purged."""

from __future__ import annotations

import json
import logging
import sqlite3
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from notecite import Engine
from notecite.cli.main import cli
from notecite.config import Settings
from notecite.embed.hashing import HashEmbedder
from notecite.schemas.ask import AskRequest
from notecite.testing import Fault, ProviderServer, ScriptedLLM, hash_settings, write_files
from notecite.testing.loopback import LoopbackServer, send_json
from tests.api.helpers import running, wait_for_index

pytestmark = pytest.mark.reliability

SECRET_FACT = "The vault combination is zanzibarquux seven."
QUESTION = "What is the vault combination of zanzibarquux?"
LLM_KEY = "sk-llm-key-never-shown-1234"
API_KEY = "api-key-never-shown-5678"


def _notes(root: Path) -> Path:
    return write_files(
        root,
        {
            "secrets/safe.md": f"# Safe\n\n{SECRET_FACT}\n",
            "garden.md": "# Garden\n\nTomatoes go in the south bed in May.\n",
        },
    )


def _all_logged(caplog: pytest.LogCaptureFixture, level: int) -> str:
    return "\n".join(
        f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records if r.levelno >= level
    )


def test_note_text_questions_and_keys_appear_only_at_debug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with ProviderServer(ScriptedLLM("It is zanzibarquux seven [N1].")) as server:
        server.fail("chat", Fault(500, message="overloaded"), times=1)  # its error path logs too
        settings = hash_settings(
            tmp_path / "home",
            llm="openai",
            generation={
                "base_url": server.url + "/v1",
                "model": "m",
                "api_key": LLM_KEY,
                "retries": 1,
            },
            ask={"folder_ranking": False},
        )
        with Engine(settings) as engine:
            engine.add_vault("notes", _notes(tmp_path / "notes"))
            engine.index("notes")
            response = engine.ask(AskRequest(question=QUESTION, debug=True))
        sent = [r.headers.get("Authorization") for r in server.received]

    assert f"Bearer {LLM_KEY}" in sent  # the key did go to the provider...
    assert "zanzibarquux" in response.answer
    above_debug = _all_logged(caplog, logging.INFO)
    everything = _all_logged(caplog, logging.DEBUG)
    assert LLM_KEY not in everything  # ...but never into a log line, at any level
    assert LLM_KEY not in response.model_dump_json()
    assert "zanzibarquux" not in above_debug
    assert "tomatoes" not in above_debug.lower()


@pytest.mark.anyio
async def test_api_keys_never_come_back_from_the_api(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = hash_settings(
        tmp_path / "home",
        server={"api_keys": [API_KEY]},
        generation={"api_key": LLM_KEY},
    )
    async with running(settings) as client:
        auth = {"Authorization": f"Bearer {API_KEY}"}
        bodies = [
            (await client.get("/vaults", headers=auth)).text,
            (await client.get("/vaults", headers={"Authorization": f"Bearer {API_KEY}x"})).text,
            (await client.post("/ask", headers=auth, json={"question": "x" * 5000})).text,
            (await client.get("/health")).text,
        ]
    for body in bodies:
        assert API_KEY not in body
        assert LLM_KEY not in body
    assert API_KEY not in _all_logged(caplog, logging.DEBUG)
    assert LLM_KEY not in _all_logged(caplog, logging.DEBUG)


def test_config_show_masks_every_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[server]\napi_keys = ["{API_KEY}"]\n[generation]\napi_key = "{LLM_KEY}"\n'
        f'[embedder]\napi_key = "{LLM_KEY}"\n'
    )
    for extra in ([], ["--json"]):
        result = CliRunner().invoke(cli, ["--home", str(home), "config", "show", *extra])
        assert result.exit_code == 0, result.output
        assert API_KEY not in result.output
        assert LLM_KEY not in result.output


def _ask_and_read_log(settings: Settings, notes: Path) -> list[str]:
    with Engine(settings) as engine:
        engine.add_vault("notes", notes)
        engine.index("notes")
        engine.ask(AskRequest(question=QUESTION))
        return [e.question for e in engine.query_log().entries()]


def test_the_query_log_keeps_questions_unless_turned_off(tmp_path: Path) -> None:
    notes = _notes(tmp_path / "notes")
    assert _ask_and_read_log(hash_settings(tmp_path / "on"), notes) == [QUESTION]
    off = hash_settings(tmp_path / "off", ask={"log_queries": False})
    assert _ask_and_read_log(off, notes) == []


KEPT_QUESTION = "Where do the marmotaria tomatoes go?"
OTHER_TENANT_QUESTION = "What does acme keep about quetzalfrog?"


def _index_bytes(home: Path) -> bytes:
    """The index file and its WAL, as raw bytes."""
    files = sorted(p for p in home.iterdir() if p.name.startswith("notecite.db") and p.is_file())
    return b"".join(p.read_bytes() for p in files)


def test_log_purge_deletes_only_the_purged_rows_and_their_bytes(tmp_path: Path) -> None:
    """``notecite log purge --before`` while a server holds the index open.

    The rows are checked through SQL: the purged one is gone, the newer one and the other
    tenant's are kept. The bytes are checked on disk, with the server's connection still open
    so the WAL is not cleaned up by a last close: the purged question is in neither the file
    nor the WAL, while the kept one still is (so the scan does see text that is there).
    Without the DELETE both checks fail; without the WAL checkpoint the question's INSERT is
    still in the WAL and the byte check fails; with ``secure_delete`` off the deleted cell
    stays in its page. (This SQLite is built with SQLITE_SECURE_DELETE, so removing the
    purge's explicit pragma alone would not fail here; it is there for builds without it.)
    """
    home = tmp_path / "home"
    settings = hash_settings(home)
    with Engine(settings) as server:  # stays open the whole time, like `notecite serve`
        server.add_vault("notes", _notes(tmp_path / "notes"))
        server.index("notes")
        server.ask(AskRequest(question=QUESTION))
        server.ask(AskRequest(question=KEPT_QUESTION))
        server.for_tenant("acme").ask(AskRequest(question=OTHER_TENANT_QUESTION))
        with sqlite3.connect(settings.db_path) as db:  # make the first question an old one
            db.execute(
                "UPDATE query_log SET asked_at = '2020-01-01T00:00:00+00:00' WHERE question = ?",
                (QUESTION,),
            )
        db.close()
        assert QUESTION.encode() in _index_bytes(home)

        base = ["--home", str(home), "--embedder", "hash"]
        purged = CliRunner().invoke(cli, [*base, "log", "purge", "--before", "2021-01-01", "--yes"])
        assert purged.exit_code == 0, purged.output
        assert "deleted 1 entry" in purged.output

        db = sqlite3.connect(f"file:{settings.db_path}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT tenant_id, question FROM query_log ORDER BY id").fetchall()
            tenants = dict(db.execute("SELECT name, id FROM tenants").fetchall())
        finally:
            db.close()
        assert rows == [(1, KEPT_QUESTION), (tenants["acme"], OTHER_TENANT_QUESTION)]
        raw = _index_bytes(home)
        assert QUESTION.encode() not in raw  # overwritten, not just unlinked
        assert KEPT_QUESTION.encode() in raw
        assert OTHER_TENANT_QUESTION.encode() in raw
        assert [e.question for e in server.query_log().entries()] == [KEPT_QUESTION]


def test_each_tenant_sees_and_purges_only_its_own_log(tmp_path: Path) -> None:
    from notecite.store.sqlite.query_log import SQLiteQueryLog

    settings = hash_settings(tmp_path / "home")
    _ask_and_read_log(settings, _notes(tmp_path / "notes"))
    other = SQLiteQueryLog(settings.db_path, tenant_id=2)
    try:
        with Engine(settings) as engine:
            engine.store.list_vaults()  # migrated
        assert other.entries() == []
        assert other.purge() == 0
        mine = SQLiteQueryLog(settings.db_path, tenant_id=1)
        assert [e.question for e in mine.entries()] == [QUESTION]
        mine.close()
    finally:
        other.close()


ECHO_QUESTION = "What is the vault combination? quibblewhisk"


@pytest.mark.anyio
async def test_provider_replies_never_reach_error_messages(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """LLM, embedding server and reranker that echo their request (prompt, note text) in
    their error replies: the API's errors keep the status and the error code, never the echo,
    which is logged at DEBUG only."""
    failing = {"embed": False}

    def respond(handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
        echo = json.dumps(body)  # the whole request: prompt, question and note text
        if handler.path.endswith("/embeddings") and not failing["embed"]:
            vectors = HashEmbedder(dimensions=64).embed_documents(list(body["input"]))
            data = [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
            send_json(handler, {"object": "list", "data": data, "model": "e"})
        elif handler.path.endswith("/embeddings"):
            send_json(handler, {"error": {"message": f"cannot embed {echo}"}}, status=500)
        elif handler.path.endswith("/rerank"):
            send_json(handler, {"error": f"bad documents: {echo}"}, status=400)
        else:
            error = {
                "message": f"too long: {echo}",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
            send_json(handler, {"error": error}, status=400)

    caplog.set_level(logging.DEBUG)
    with LoopbackServer(respond) as server:
        settings = hash_settings(
            tmp_path / "home",
            embedder={"name": "openai", "base_url": server.url + "/v1", "model": "e"},
            llm="openai",
            generation={"base_url": server.url + "/v1", "model": "m", "retries": 0},
            retrieval={"reranker": "cross-encoder", "cross_encoder_url": server.url + "/rerank"},
            ask={"folder_ranking": False, "auto_rag": "always"},
        )
        async with running(settings) as client:
            created = await client.post(
                "/vaults", json={"name": "notes", "path": str(_notes(tmp_path / "notes"))}
            )
            assert created.status_code == 201, created.text
            assert (await client.post("/vaults/notes/index")).status_code == 202
            assert (await wait_for_index(client, "notes"))["state"] == "done"
            failing["embed"] = True
            asked = (
                await client.post("/ask", json={"question": ECHO_QUESTION, "debug": True})
            ).json()
            completion = await client.post(
                "/v1/chat/completions",
                json={
                    "model": "notecite",
                    "messages": [{"role": "user", "content": ECHO_QUESTION}],
                },
            )
        echoed = [r for r in server.received if "zanzibarquux" in json.dumps(r.body)]

    assert {r.path for r in echoed} >= {"/v1/chat/completions", "/rerank"}  # note text was sent
    debug = asked["debug"]
    messages = [
        asked["error"]["message"],
        *debug["notes"],
        *(step["detail"] for step in debug["auto_rag"]["steps"]),
        completion.json()["error"]["message"],  # beside it: the citations, note text and all
    ]
    said = "\n".join(messages)
    assert "answered 400 Bad Request (context_length_exceeded)" in asked["error"]["message"]
    assert "answered 400 Bad Request" in said  # the reranker's
    assert "answered 500 Internal Server Error" in said  # the embedding server's
    for private in ("zanzibarquux", "quibblewhisk", "too long", "bad documents", "cannot embed"):
        assert private not in said
        assert private not in _all_logged(caplog, logging.INFO)
    assert "zanzibarquux" in _all_logged(caplog, logging.DEBUG)  # the body went to DEBUG
