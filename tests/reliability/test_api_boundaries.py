"""Path traversal, symlinks and oversize requests at the HTTP API: nothing outside a vault root.

The app runs in-process (httpx ASGITransport); a secret file sits next to the vault, and a
symlink inside the vault points at it. No path, link, folder filter or vault name reaches it;
oversize bodies are refused before they are read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from notecite import Settings
from notecite.testing import hash_settings, write_files
from tests.api.helpers import add_and_index, running

pytestmark = [pytest.mark.reliability, pytest.mark.anyio]

SECRET = "TOPSECRET-outside-the-vault"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Settings, Path]:
    write_files(tmp_path / "outside", {"secret.md": f"# Secret\n\n{SECRET} launch codes.\n"})
    vault = write_files(
        tmp_path / "vault",
        {
            "notes/apollo.md": "# Apollo\n\nThe Apollo launch is on March 14.\n",
            "readme.md": "# Readme\n\nLaunch notes live here.\n",
        },
    )
    (vault / "notes" / "link.md").symlink_to(tmp_path / "outside" / "secret.md")
    (vault / "outside-dir").symlink_to(tmp_path / "outside", target_is_directory=True)
    return hash_settings(tmp_path / "home", server={"max_request_bytes": 64_000}), vault


@pytest.fixture
async def client(layout: tuple[Settings, Path]) -> AsyncIterator[httpx.AsyncClient]:
    settings, vault = layout
    async with running(settings) as started:
        status = await add_and_index(started, "v", vault)
        assert status["state"] == "done", status
        yield started


def _no_secret(response: httpx.Response) -> None:
    assert SECRET not in response.text
    assert "launch codes" not in response.text


TRAVERSALS = (
    "../outside/secret.md",
    "notes/../../outside/secret.md",
    "%2e%2e/outside/secret.md",
    "%2E%2E%2Foutside%2Fsecret.md",
    "notes/%2e%2e/%2e%2e/outside/secret.md",
    "..%5Coutside%5Csecret.md",
    "/etc/passwd",
    "%2Fetc%2Fpasswd",
    "notes/link.md",
    "outside-dir/secret.md",
    "./readme.md/../../outside/secret.md",
)


async def test_note_paths_never_leave_the_vault(client: httpx.AsyncClient) -> None:
    for path in TRAVERSALS:
        response = await client.get(f"/notes/v/{path}")
        assert response.status_code in (400, 404, 422), (path, response.status_code)
        _no_secret(response)


async def test_a_real_note_is_served(client: httpx.AsyncClient) -> None:
    response = await client.get("/notes/v/notes/apollo.md")
    assert response.status_code == 200
    assert "March 14" in response.text


async def test_symlinks_out_of_the_vault_are_never_indexed(client: httpx.AsyncClient) -> None:
    for question in ("launch codes", SECRET):
        response = await client.post("/search", json={"query": question, "k": 10})
        assert response.status_code == 200, response.text
        _no_secret(response)
        assert all("secret" not in hit["rel_path"] for hit in response.json()["results"])


ASK_BODIES: tuple[dict[str, object], ...] = (
    {"question": "launch codes?", "folders": ["../outside"]},
    {"question": "launch codes?", "folders": ["/etc", "../../"]},
    {"question": "launch codes?", "folders": ["outside-dir"]},
    {"question": "launch codes?", "vaults": ["../outside"]},
    {"question": "launch codes?", "vaults": ["v/../../outside"]},
)


async def test_ask_parameters_never_reach_outside(client: httpx.AsyncClient) -> None:
    for body in ASK_BODIES:
        response = await client.post("/ask", json=body)
        assert response.status_code in (200, 400, 404, 422), response.text
        _no_secret(response)
        if response.status_code == 200:
            paths = [r["rel_path"] for r in response.json()["references"]]
            assert all("secret" not in p for p in paths)


async def test_oversize_requests_are_refused(client: httpx.AsyncClient) -> None:
    long_question = await client.post("/ask", json={"question": "why " * 1000})
    assert long_question.status_code == 422
    assert long_question.json()["error"]["type"] == "ValidationError"

    huge = await client.post("/ask", json={"question": "x", "folders": ["a" * 100] * 1000})
    assert huge.status_code == 413
    assert huge.json()["error"]["type"] == "PayloadTooLargeError"

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"question": "x", "folders": ['
        for _ in range(2000):
            yield b'"' + b"a" * 100 + b'",'
        yield b'"b"]}'

    chunked = await client.post(
        "/ask", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert chunked.status_code == 413

    ok = await client.post("/ask", json={"question": "When is the Apollo launch?"})
    assert ok.status_code == 200
