"""GraphQL at /graphql: sessions with their RAG fields, settings and chat, per tenant."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import strawberry

from notecite import load_settings
from notecite.api.graphql import schema
from notecite.chat.errors import SessionNotFoundError
from tests.api.helpers import add_and_index, running

pytestmark = pytest.mark.anyio

SESSION_FIELDS = """
    id title messageCount enableRag ragTopK ragThreshold includeCitations model systemPrompt
"""


async def gql(
    client: httpx.AsyncClient, query: str, headers: dict[str, str] | None = None, **variables: Any
) -> dict[str, Any]:
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=headers
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_create_update_query_and_chat(indexed: httpx.AsyncClient) -> None:
    created = await gql(
        indexed,
        f"""mutation($opts: RagOptions) {{
            createSession(title: "Budgets", ragOptions: $opts) {{ {SESSION_FIELDS} }}
        }}""",
        opts={"ragTopK": 3, "includeCitations": True, "systemPrompt": "Be brief."},
    )
    session = created["data"]["createSession"]
    assert session["title"] == "Budgets"
    assert (session["ragTopK"], session["enableRag"], session["systemPrompt"]) == (
        3,
        True,
        "Be brief.",
    )
    sid = session["id"]

    updated = await gql(
        indexed,
        f"""mutation($id: ID!) {{
            updateSessionSettings(id: $id, ragOptions: {{ragThreshold: 0.1, systemPrompt: null}})
            {{ {SESSION_FIELDS} }}
        }}""",
        id=sid,
    )
    changed = updated["data"]["updateSessionSettings"]
    assert changed["ragThreshold"] == pytest.approx(0.1)
    assert changed["systemPrompt"] is None
    assert changed["ragTopK"] == 3
    rest = (await indexed.get(f"/sessions/{sid}/settings")).json()
    assert (rest["rag_top_k"], rest["rag_threshold"]) == (3, pytest.approx(0.1))

    sent = await gql(
        indexed,
        """mutation($id: ID!) {
            sendMessage(message: "What is the Apollo budget?", sessionId: $id) {
                answer sessionId error { type }
                citations { cid noteId chunkId snippet score }
                meta { model invalidCitations retrieval { k strategy candidateCount } }
            }
        }""",
        id=sid,
    )
    reply = sent["data"]["sendMessage"]
    assert reply["sessionId"] == sid
    assert "40000" in reply["answer"]
    assert "[N1]" in reply["answer"]
    assert reply["citations"][0]["noteId"] == "notes/projects/apollo.md"
    assert reply["meta"]["model"] == "extractive"
    assert reply["meta"]["retrieval"]["k"] >= 1
    assert reply["error"] is None

    one = await gql(
        indexed,
        """query($id: ID!) {
            session(id: $id) { id messageCount messages { role content citations { cid } } }
        }""",
        id=sid,
    )
    detail = one["data"]["session"]
    assert detail["messageCount"] == 2
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
    assert "**Sources:**" in detail["messages"][1]["content"]
    assert detail["messages"][1]["citations"][0]["cid"] == "N1"

    fresh = await gql(
        indexed, 'mutation { sendMessage(message: "When is the Apollo launch?") { sessionId } }'
    )
    listed = await gql(indexed, "{ sessions { id title messageCount } }")
    ids = [s["id"] for s in listed["data"]["sessions"]]
    assert ids == [fresh["data"]["sendMessage"]["sessionId"], sid]  # newest activity first


async def test_errors_are_reported_not_raised(indexed: httpx.AsyncClient) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    missing = await gql(indexed, "query($id: ID!) { session(id: $id) { id } }", id=unknown)
    assert missing["data"]["session"] is None

    bad = await gql(
        indexed,
        "mutation($id: ID!) { updateSessionSettings(id: $id, ragOptions: {ragTopK: 2}) { id } }",
        id=unknown,
    )
    assert "no chat session" in bad["errors"][0]["message"]
    out_of_range = await gql(
        indexed, "mutation { createSession(ragOptions: {ragTopK: 11}) { id } }"
    )
    assert "rag_top_k" in out_of_range["errors"][0]["message"]
    model = await gql(indexed, 'mutation { createSession(ragOptions: {model: "gpt-9"}) { id } }')
    assert "unknown model" in model["errors"][0]["message"]
    vault = await gql(
        indexed, 'mutation { sendMessage(message: "hi", vaults: ["nope"]) { answer } }'
    )
    assert "unknown vault" in vault["errors"][0]["message"]
    tenant = await gql(
        indexed, 'mutation { sendMessage(message: "hi", tenantId: "acme") { answer } }'
    )
    assert "not the tenant of this API key" in tenant["errors"][0]["message"]
    assert (await gql(indexed, "{ sessions { id } }"))["data"]["sessions"] == []


async def test_graphql_serves_only_the_keys_tenant(
    tmp_path: Path, notes_dir: Path, store_settings: dict[str, str]
) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        store=store_settings,
        server={
            "api_keys": ["alpha-key"],
            "tenant_keys": {"beta": ["beta-key"]},
            "vault_roots": [notes_dir],
        },
    )
    alpha = {"Authorization": "Bearer alpha-key"}
    beta = {"Authorization": "Bearer beta-key"}
    async with running(settings) as client:
        unauthorized = await client.post("/graphql", json={"query": "{ sessions { id } }"})
        assert unauthorized.status_code == 401
        client.headers.update(alpha)
        assert (await add_and_index(client, "notes", notes_dir))["state"] == "done"
        sent = await gql(
            client,
            'mutation { sendMessage(message: "What is the Apollo budget?") { sessionId } }',
        )
        sid = sent["data"]["sendMessage"]["sessionId"]

        assert (await gql(client, "{ sessions { id } }", beta))["data"]["sessions"] == []
        seen = await gql(client, "query($id: ID!) { session(id: $id) { id } }", beta, id=sid)
        assert seen["data"]["session"] is None
        update = await gql(
            client,
            "mutation($id: ID!) { updateSessionSettings(id: $id, ragOptions: {ragTopK: 1}) "
            "{ id } }",
            beta,
            id=sid,
        )
        assert "no chat session" in update["errors"][0]["message"]
        follow = await gql(
            client,
            'mutation($id: ID!) { sendMessage(message: "and?", sessionId: $id) { answer } }',
            beta,
            id=sid,
        )
        assert "no chat session" in follow["errors"][0]["message"]
        answer = await gql(
            client,
            'mutation { sendMessage(message: "What is the Apollo budget?") { answer citations '
            "{ noteId } } }",
            beta,
        )
        assert "40000" not in answer["data"]["sendMessage"]["answer"]
        assert answer["data"]["sendMessage"]["citations"] == []
        kept = await gql(
            client, "query($id: ID!) { session(id: $id) { messageCount ragTopK } }", id=sid
        )
        assert kept["data"]["session"] == {"messageCount": 2, "ragTopK": 5}


def test_unexpected_errors_are_masked_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    @strawberry.type
    class Probe:
        @strawberry.field
        def boom(self) -> int:
            raise RuntimeError("internal detail")

        @strawberry.field
        def unknown(self) -> int:
            raise SessionNotFoundError("no chat session 'x'")

    probe = type(schema)(query=Probe, extensions=schema.extensions)
    with caplog.at_level(logging.DEBUG, logger="notecite.api.graphql.schema"):
        boom = probe.execute_sync("{ boom }")
        unknown = probe.execute_sync("{ unknown }")
    assert [e.message for e in boom.errors or []] == ["Unexpected error."]
    assert [e.message for e in unknown.errors or []] == ["no chat session 'x'"]
    levels = {r.getMessage(): r.levelno for r in caplog.records}
    assert levels["GraphQL resolver failed"] == logging.ERROR
    assert levels["GraphQL error: no chat session 'x'"] == logging.DEBUG


async def test_graphql_is_post_only_and_openapi_lists_the_new_routes(
    client: httpx.AsyncClient,
) -> None:
    # no GraphiQL page (its scripts come from a CDN) and no queries over GET
    for accept in ("text/html", "application/json"):
        ide = await client.get(
            "/graphql", params={"query": "{ sessions { id } }"}, headers={"Accept": accept}
        )
        assert 400 <= ide.status_code < 500
        assert set(ide.json()["error"]) == {"type", "message"}
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert {"/graphql", "/v1/models", "/v1/chat/completions"} <= set(paths)
