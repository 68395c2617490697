"""Hostile requests get a JSON 4xx, never a plain-text 500 (issue 17), and the server goes on.

The app runs in-process (httpx ASGITransport, with the app's exceptions turned into responses
as a server would); each case was a plain-text 500 (or a 503) before.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from notecite.api import create_app
from notecite.api.error_responses import JsonErrors
from notecite.api.headers import SecurityHeaders
from notecite.config import Settings
from notecite.testing import hash_settings
from tests.api.helpers import BASE_URL, add_and_index
from tests.chat.notes import write_notes

pytestmark = [pytest.mark.reliability, pytest.mark.anyio]

DEEP = 100_000


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def serving_in_process(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The started app; an exception that escapes it becomes a response, as under uvicorn."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
            yield client


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with serving_in_process(hash_settings(tmp_path / "home")) as started:
        status = await add_and_index(started, "notes", write_notes(tmp_path / "notes"))
        assert status["state"] == "done", status
        yield started


def assert_json_error(response: httpx.Response, status: int) -> dict[str, str]:
    """The response is ``status`` with a ``{"error": {"type", "message"}}`` JSON body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"type", "message"}
    return dict(body["error"])


def raw_json(text: str) -> dict[str, Any]:
    """Request arguments for a JSON body given as text (so it can hold any escape)."""
    return {"content": text.encode(), "headers": {"Content-Type": "application/json"}}


CASES: list[tuple[str, str, str, dict[str, Any], int]] = [
    # (case, method, path, request arguments, status)
    ("NUL in a note path", "GET", "/notes/notes/a%00b.md", {}, 400),
    ("NUL in the query", "GET", "/sessions?limit=%00", {}, 400),
    ("NUL in a vault path", "POST", "/vaults", {"json": {"name": "x", "path": "/tmp/a\x00b"}}, 422),
    ("3,000 folders", "GET", "/notes/notes/" + "a/" * 3000 + "x.md", {}, 422),
    ("a name too long", "GET", "/notes/notes/" + "a" * 300 + "/x.md", {}, 404),
    (
        "a vault of 3,000 folders",
        "POST",
        "/vaults",
        {"json": {"name": "x", "path": "/" + "a/" * 3000}},
        422,
    ),
    (
        "a vault name too long",
        "POST",
        "/vaults",
        {"json": {"name": "x", "path": "/tmp/" + "a" * 300}},
        422,
    ),
    (
        "a lone surrogate in vaults",
        "POST",
        "/search",
        raw_json('{"query": "apollo", "vaults": ["\\ud800"]}'),
        422,
    ),
    (
        "a lone surrogate in a question",
        "POST",
        "/ask",
        raw_json('{"question": "x \\udfff y"}'),
        422,
    ),
    (
        "a surrogate as raw bytes",
        "POST",
        "/ask",
        {
            "content": b'{"question": "x \xed\xa0\x80"}',
            "headers": {"Content-Type": "application/json"},
        },
        422,
    ),
    ("NUL in a chat message", "POST", "/chat", {"json": {"message": "hi\x00there"}}, 422),
    ("offset 2^63", "GET", f"/sessions?offset={2**63}", {}, 422),
    ("a negative offset", "GET", "/sessions?offset=-1", {}, 422),
    (
        "GraphQL variables 100,000 deep",
        "POST",
        "/graphql",
        raw_json(
            '{"query": "{ sessions { id } }", "variables": {"v": ' + "[" * DEEP + "]" * DEEP + "}}"
        ),
        422,
    ),
    (
        "GraphQL variables deep under an odd JSON type",
        "POST",
        "/graphql",
        {
            "content": b'{"query": "{ sessions { id } }", "variables": {"v": '
            + b"[" * DEEP
            + b"]" * DEEP
            + b"}}",
            "headers": {"Content-Type": "x-application/json"},
        },
        422,
    ),
    (
        "an /ask body 100,000 deep",
        "POST",
        "/ask",
        raw_json('{"question": "q", "x": ' + "[" * DEEP + "]" * DEEP + "}"),
        422,
    ),
    (
        "a body 40 deep",
        "POST",
        "/ask",
        raw_json('{"question": "q", "x": ' + "[" * 40 + "]" * 40 + "}"),
        422,
    ),
    (
        "10,000 folders in /search",
        "POST",
        "/search",
        {"json": {"query": "apollo", "folders": [f"f{i}" for i in range(10_000)]}},
        422,
    ),
    (
        "10,000 folders in /ask",
        "POST",
        "/ask",
        {"json": {"question": "apollo?", "folders": [f"f{i}" for i in range(10_000)]}},
        422,
    ),
    (
        "10,000 folders in /chat",
        "POST",
        "/chat",
        {"json": {"message": "apollo?", "folders": [f"f{i}" for i in range(10_000)]}},
        422,
    ),
    (
        "10,000 folders in /v1",
        "POST",
        "/v1/chat/completions",
        {
            "json": {
                "model": "notecite",
                "messages": [{"role": "user", "content": "apollo?"}],
                "folders": [f"f{i}" for i in range(10_000)],
            }
        },
        422,
    ),
    ("51 vaults", "POST", "/search", {"json": {"query": "apollo", "vaults": ["notes"] * 51}}, 422),
    (
        "a folder name of 5,000 characters",
        "POST",
        "/search",
        {"json": {"query": "apollo", "folders": ["a" * 5000]}},
        422,
    ),
    (
        "GraphQL body that is not JSON",
        "POST",
        "/graphql",
        {"content": b"{nope", "headers": {"Content-Type": "application/json"}},
        400,
    ),
    (
        "GraphQL body of another type",
        "POST",
        "/graphql",
        {"content": b"{}", "headers": {"Content-Type": "text/plain"}},
        400,
    ),
    ("a method the route lacks", "PUT", "/health", {}, 405),
]


@pytest.mark.parametrize(
    ("method", "path", "arguments", "status"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
async def test_a_hostile_request_gets_a_json_4xx(
    client: httpx.AsyncClient, method: str, path: str, arguments: dict[str, Any], status: int
) -> None:
    response = await client.request(method, path, **arguments)
    assert_json_error(response, status)
    # and the server goes on answering
    assert (await client.get("/health")).status_code == 200
    found = await client.post("/search", json={"query": "apollo budget", "folders": ["projects"]})
    assert found.status_code == 200
    assert found.json()["results"]


async def test_caps_let_normal_requests_through(client: httpx.AsyncClient) -> None:
    folders = [f"projects/f{i}" for i in range(199)] + ["projects"]
    found = await client.post("/search", json={"query": "apollo", "folders": folders})
    assert found.status_code == 200, found.text
    paths = {hit["rel_path"] for hit in found.json()["results"]}
    assert "projects/apollo.md" in paths
    assert all(path.startswith("projects/") for path in paths)
    assert (await client.get("/sessions", params={"offset": 1_000_000})).status_code == 200
    deep = {"question": "apollo?", "folders": []}
    assert (await client.post("/ask", json=deep)).status_code == 200


async def test_graphql_send_message_has_the_same_caps(client: httpx.AsyncClient) -> None:
    query = 'mutation($f: [String!]) { sendMessage(message: "apollo?", folders: $f) { answer } }'
    reply = await client.post(
        "/graphql", json={"query": query, "variables": {"f": [f"f{i}" for i in range(201)]}}
    )
    assert reply.status_code == 200
    assert "at most 200 folders" in reply.json()["errors"][0]["message"]
    reply = await client.post("/graphql", json={"query": "{ sessions(offset: 2000000) { id } }"})
    assert "offset 0-1000000" in reply.json()["errors"][0]["message"]


# -- the last line of the boundary, on a bare app --------------------------------------------


async def _boom(request: Request) -> PlainTextResponse:
    raise RuntimeError("a bug")


async def _text_error(request: Request) -> PlainTextResponse:
    return PlainTextResponse("Unsupported thing", status_code=400, headers={"X-Kept": "1"})


async def test_an_unexpected_exception_or_a_text_error_becomes_json_with_the_headers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = Starlette(
        routes=[Route("/boom", _boom), Route("/text", _text_error)],
        middleware=[Middleware(SecurityHeaders), Middleware(JsonErrors)],
    )
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as bare:
        boom = await bare.get("/boom")
        text = await bare.get("/text")
    error = assert_json_error(boom, 500)
    assert error == {
        "type": "InternalError",
        "message": "internal server error; see the server log",
    }
    assert "a bug" not in boom.text
    assert "a bug" in caplog.text  # logged for the operator
    assert assert_json_error(text, 400) == {
        "type": "BadRequestError",
        "message": "Unsupported thing",
    }
    assert text.headers["x-kept"] == "1"
    for response in (boom, text):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert json.loads(text.content)  # the length header matches the new body
