"""Secrets and privacy: keys never logged or returned, note text and prompts only at DEBUG, a
query log that can be turned off and purged."""

from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from notecite import Engine
from notecite.ask_types import AskRequest
from notecite.cli.main import cli
from notecite.config import Settings
from tests.api.helpers import running
from tests.generate.servers import LoopbackServer, chat_completion, send_json
from tests.helpers import hash_settings, write_files

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
    def respond(handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
        if number == 1:  # a failure first: its error path logs too
            send_json(handler, {"error": {"message": "overloaded"}}, status=500)
        else:
            send_json(handler, chat_completion("It is zanzibarquux seven [N1]."))

    caplog.set_level(logging.DEBUG)
    with LoopbackServer(respond) as server:
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
    result = CliRunner().invoke(cli, ["--home", str(home), "config", "show"])
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


def test_log_purge_removes_the_text_from_the_index_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = hash_settings(home)
    _ask_and_read_log(settings, _notes(tmp_path / "notes"))
    base = ["--home", str(home), "--embedder", "hash"]
    runner = CliRunner()

    listed = runner.invoke(cli, [*base, "log", "list"])
    assert listed.exit_code == 0, listed.output
    assert QUESTION in listed.output
    purged = runner.invoke(cli, [*base, "log", "purge", "--yes"])
    assert purged.exit_code == 0, purged.output
    assert "deleted 1 entry" in purged.output
    assert "is empty" in runner.invoke(cli, [*base, "log", "list"]).output

    files = [p for p in home.iterdir() if p.name.startswith("notecite.db")]
    raw = b"".join(p.read_bytes() for p in files if p.is_file())
    assert b"What is the vault combination" not in raw  # overwritten, not just unlinked


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
