"""/health, /ask, /search, the OpenAPI document, and the shared error shape."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from notecite import load_settings
from notecite.testing import HANG, ProviderServer
from tests.api.helpers import add_and_index, assert_error, running

pytestmark = pytest.mark.anyio


async def test_health_needs_nothing(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


async def test_the_openapi_document_lists_every_route(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path in ("/health", "/ask", "/search", "/chat", "/vaults", "/vaults/{name}/index"):
        assert path in paths
    assert "/sessions/{session_id}/settings" in paths
    # no interactive docs: they load their scripts from a CDN, which the page's policy forbids
    assert (await client.get("/docs")).status_code == 404


async def test_ask_answers_with_references(indexed: httpx.AsyncClient) -> None:
    response = await indexed.post(
        "/ask", json={"question": "What is the Apollo budget?", "debug": True}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "40000 euros" in body["answer"]
    assert body["references"][0]["rel_path"] == "projects/apollo.md"
    assert body["debug"]["retrieved_chunks"]
    assert body["error"] is None


async def test_search_returns_scored_chunks(indexed: httpx.AsyncClient) -> None:
    response = await indexed.post(
        "/search", json={"query": "tomatoes compost", "vaults": ["notes"], "k": 2}
    )
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert len(results) <= 2
    assert results[0]["rel_path"] == "home/garden.md"
    assert {"score", "score_vector", "score_bm25", "heading_path", "chunk_id"} <= set(results[0])


async def test_a_blank_search_query_is_a_422(client: httpx.AsyncClient) -> None:
    for query in (" ", "\n\n", "\t "):
        message = assert_error(
            await client.post("/search", json={"query": query}), 422, "ValidationError"
        )
        assert "blank" in message


async def test_a_question_over_2000_characters_is_a_422(client: httpx.AsyncClient) -> None:
    message = assert_error(
        await client.post("/ask", json={"question": "why " * 501}), 422, "ValidationError"
    )
    assert "question" in message
    assert_error(await client.post("/search", json={"query": "x" * 2001}), 422, "ValidationError")


async def test_bad_json_and_unknown_fields_are_a_422(client: httpx.AsyncClient) -> None:
    bad = await client.post(
        "/ask", content=b'{"question": ', headers={"content-type": "application/json"}
    )
    assert "not valid JSON" in assert_error(bad, 422, "ValidationError")
    assert_error(
        await client.post("/ask", json={"question": "q", "colour": "red"}), 422, "ValidationError"
    )


async def test_unknown_vaults_and_routes_are_a_404(indexed: httpx.AsyncClient) -> None:
    message = assert_error(
        await indexed.post("/ask", json={"question": "budget?", "vaults": ["nope"]}),
        404,
        "NotFoundError",
    )
    assert "known vaults: notes" in message
    assert_error(
        await indexed.post("/search", json={"query": "budget", "vaults": ["nope"]}),
        404,
        "NotFoundError",
    )
    assert_error(await indexed.get("/no/such/route"), 404, "NotFoundError")


async def test_an_llm_timeout_is_a_504_that_still_has_the_references(
    tmp_path: Path, notes_dir: Path
) -> None:
    with ProviderServer() as server:
        server.fail("chat", HANG)
        settings = load_settings(
            home=tmp_path / "slow",
            embedder={"name": "hash"},
            llm="openai",
            generation={"base_url": server.url + "/v1", "timeout_s": 0.3, "retries": 0},
            ask={"folder_ranking": False},
        )
        async with running(settings) as client:
            await add_and_index(client, "notes", notes_dir)
            response = await client.post("/ask", json={"question": "What is the Apollo budget?"})
    assert response.status_code == 504, response.text
    body = response.json()
    assert body["error"]["type"] == "LLMTimeoutError"
    assert "timed out" in body["error"]["message"]
    assert body["references"]
