"""What the web page needs from the API: note files (never outside a vault), folders, the
chat's debug, detail and abstention, and the pages themselves."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import httpx
import pytest

from notecite import load_settings
from notecite.api.errors import InvalidRequestError, NotFoundError
from notecite.api.routes.notes import note_file
from tests.api.helpers import add_and_index, assert_error, running

pytestmark = pytest.mark.anyio

APOLLO = "projects/apollo.md"


async def test_an_indexed_note_is_served_as_plain_text(indexed: httpx.AsyncClient) -> None:
    response = await indexed.get(f"/notes/notes/{APOLLO}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "The Apollo budget is 40000 euros" in response.text


@pytest.mark.parametrize(
    ("path", "status", "type_"),
    [
        ("..%2F..%2Fetc%2Fpasswd", 422, "InvalidRequestError"),
        ("projects%2F..%2F..%2Fsecret.md", 422, "InvalidRequestError"),
        ("%2Fetc%2Fpasswd", 422, "InvalidRequestError"),
        ("projects%5C..%5Capollo.md", 422, "InvalidRequestError"),
        ("C:%2Fsecret.md", 422, "InvalidRequestError"),
        ("projects/missing.md", 404, "NotFoundError"),
        ("projects", 404, "NotFoundError"),
    ],
)
async def test_a_note_path_never_leaves_the_vault(
    indexed: httpx.AsyncClient, path: str, status: int, type_: str
) -> None:
    assert_error(await indexed.get(f"/notes/notes/{path}"), status, type_)


async def test_files_the_index_does_not_hold_are_not_served(
    client: httpx.AsyncClient, notes_dir: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Secret\n\nThe safe code is 1234.\n", encoding="utf-8")
    os.symlink(secret, notes_dir / "escape.md")
    os.symlink(secret.parent, notes_dir / "elsewhere")
    (notes_dir / "keys.bin").write_bytes(b"not a note")
    await add_and_index(client, "notes", notes_dir)

    for path in ("escape.md", "elsewhere/secret.md", "keys.bin"):
        response = await client.get(f"/notes/notes/{path}")
        assert_error(response, 404, "NotFoundError")
        assert "1234" not in response.text
    assert_error(await client.get(f"/notes/nowhere/{APOLLO}"), 404, "NotFoundError")


def test_note_file_resolves_links_and_refuses_what_leaves_the_root(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "a").mkdir(parents=True)
    (root / "a" / "n.md").write_text("x", encoding="utf-8")
    (tmp_path / "out.md").write_text("y", encoding="utf-8")
    os.symlink(tmp_path / "out.md", root / "a" / "link.md")
    os.symlink(root / "a" / "n.md", root / "inside.md")

    assert note_file(root, "a/n.md") == (root / "a" / "n.md").resolve()
    assert note_file(root, "inside.md") == (root / "a" / "n.md").resolve()
    with pytest.raises(NotFoundError):
        note_file(root, "a/link.md")
    for bad in ("../out.md", "a/../../out.md", "/etc/passwd", "", "a\\n.md"):
        with pytest.raises(InvalidRequestError):
            note_file(root, bad)


async def test_folders_of_a_vault_are_listed(indexed: httpx.AsyncClient) -> None:
    response = await indexed.get("/vaults/notes/folders")
    assert response.json() == {"vault": "notes", "folders": ["home", "projects"]}
    assert_error(await indexed.get("/vaults/nowhere/folders"), 404, "NotFoundError")


async def test_a_chat_answer_carries_debug_and_where_each_citation_is(
    indexed: httpx.AsyncClient,
) -> None:
    body = (
        await indexed.post(
            "/chat",
            json={"message": "What is the Apollo budget?", "debug": True, "detail": "brief"},
        )
    ).json()
    apollo = next(c for c in body["citations"] if c["noteId"] == f"notes/{APOLLO}")
    assert (apollo["vault"], apollo["path"]) == ("notes", APOLLO)
    assert apollo["section"] == "# Apollo > ## Budget"
    assert body["meta"]["abstained"] is False
    assert body["meta"]["abstainReason"] is None

    debug = body["debug"]
    chunks = debug["retrieved_chunks"]
    assert [c["rank"] for c in chunks] == list(range(1, len(chunks) + 1))
    assert {"score_vector", "score_lexical", "score_final", "kept"} <= set(chunks[0])
    assert any(c["kept"] for c in chunks)
    cited = {c["chunk_id"] for c in chunks if c["cited"]}
    assert cited == {c["chunkId"] for c in body["citations"]}
    assert debug["folder_selection"]["available"] == ["notes/home", "notes/projects"]
    timings = debug["timings_ms"]
    assert timings["generate"] > 0
    assert timings["total"] >= timings["generate"]

    plain = (await indexed.post("/chat", json={"message": "What is the Apollo budget?"})).json()
    assert "debug" not in plain
    bad = await indexed.post("/chat", json={"message": "hi", "detail": "verbose"})
    assert_error(bad, 422, "ValidationError")


async def test_an_abstention_says_why_and_is_kept_with_the_message(
    indexed: httpx.AsyncClient,
) -> None:
    session = (await indexed.post("/sessions", json={"settings": {"rag_threshold": 1.0}})).json()
    body = (
        await indexed.post(
            "/chat", json={"message": "What colour is the door?", "sessionId": session["id"]}
        )
    ).json()
    assert body["meta"]["abstained"] is True
    assert body["meta"]["abstainReason"] == "no_relevant_context"
    assert body["citations"] == []
    stored = (await indexed.get(f"/sessions/{session['id']}")).json()["messages"][-1]
    assert stored["meta"]["abstained"] is True
    assert stored["meta"]["abstainReason"] == "no_relevant_context"

    plain = (await indexed.post("/sessions", json={"settings": {"enable_rag": False}})).json()
    chat = await indexed.post("/chat", json={"message": "hello", "sessionId": plain["id"]})
    assert chat.json()["meta"]["abstained"] is False


async def test_the_pages_are_served_with_the_note_link_template(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        server={"note_uri_template": "obsidian://open?vault={vault}&file={path}"},
    )
    async with running(settings) as client:
        page = await client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert 'data-note-uri="obsidian://open?vault={vault}&amp;file={path}"' in page.text
        assert '<option value="extractive">' in page.text
        for path in ("/logs", "/indexing", "/view/notes/projects/apollo.md?section=x"):
            assert (await client.get(path)).status_code == 200, path
        script = await client.get("/static/chat.js")
        assert script.status_code == 200
        assert "streamChat" in script.text
        assert "http://" not in (await client.get("/static/api.js")).text  # no CDN
        view = await client.get("/view/notes/%3Cscript%3E.md")
        assert "<script>.md" not in view.text  # escaped in the page


async def test_with_api_keys_the_pages_load_but_notes_need_the_key(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        server={"api_keys": ["a-long-secret"]},
    )
    async with running(settings) as client:
        assert (await client.get("/")).status_code == 200
        assert_error(await client.get(f"/notes/notes/{APOLLO}"), 401, "UnauthorizedError")
        assert_error(await client.get("/vaults/notes/folders"), 401, "UnauthorizedError")


def test_the_readme_note_link_example_is_a_valid_setting(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```toml\n(\[server\]\nnote_uri_template.*?)```", readme, re.DOTALL)
    server = tomllib.loads(block)["server"]
    settings = load_settings(home=tmp_path / "home", server=server)
    assert settings.server.note_uri_template == "obsidian://open?vault={vault}&file={path}"
