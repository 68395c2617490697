"""GraphQL requests are held to a size, a depth, a number of aliases and one model turn: one
request can no longer do the work of hundreds (issue 17: 200 aliased sendMessage turns)."""

from __future__ import annotations

import time

import httpx
import pytest

from notecite.api.graphql.limits import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS

pytestmark = pytest.mark.anyio

SEND = 'sendMessage(message: "What is the Apollo budget?") { answer }'


async def errors_of(client: httpx.AsyncClient, query: str) -> list[str]:
    response = await client.post("/graphql", json={"query": query})
    assert response.status_code == 200, response.text
    return [e["message"] for e in response.json().get("errors") or []]


async def session_count(client: httpx.AsyncClient) -> int:
    return len((await client.get("/sessions")).json()["sessions"])


async def test_one_send_message_per_request(indexed: httpx.AsyncClient) -> None:
    limits = ("one sendMessage per request", "aliases found", f"more than {MAX_TOKENS} tokens")
    attacks = [
        "mutation { " + " ".join(f"t{i}: {SEND}" for i in range(200)) + " }",  # the 12.7 KB one
        "mutation { " + " ".join(f"t{i}: {SEND}" for i in range(15)) + " }",
        f"mutation {{ a: {SEND} b: {SEND} }}",
        f"mutation {{ ...A ...B }} fragment A on Mutation {{ a: {SEND} }} "
        f"fragment B on Mutation {{ b: {SEND} }}",
        f"mutation {{ a: {SEND} }} mutation Other {{ b: {SEND} }}",
    ]
    assert "one sendMessage per request" in (await errors_of(indexed, attacks[1]))[0]
    for query in attacks:
        started = time.monotonic()
        errors = await errors_of(indexed, query)
        assert any(limit in e for e in errors for limit in limits), errors
        assert time.monotonic() - started < 2
    assert await session_count(indexed) == 0  # not one turn ran
    assert await errors_of(indexed, f"mutation {{ {SEND} }}") == []
    assert await session_count(indexed) == 1


async def test_aliases_are_capped(indexed: httpx.AsyncClient) -> None:
    def aliased(n: int) -> str:
        return "{ " + " ".join(f"s{i}: sessions {{ id }}" for i in range(n)) + " }"

    assert await errors_of(indexed, aliased(MAX_ALIASES)) == []
    over = MAX_ALIASES + 1
    assert await errors_of(indexed, aliased(over)) == [
        f"{over} aliases found. Allowed: {MAX_ALIASES}"
    ]
    started = time.monotonic()  # issue 17: 3,000 aliased queries took 3.6 s
    assert any("tokens" in e for e in await errors_of(indexed, aliased(3000)))
    assert time.monotonic() - started < 1


async def test_depth_and_size_are_capped(indexed: httpx.AsyncClient) -> None:
    deep = "{ sessions " + "{ messages " * MAX_DEPTH + "{ id }" + " }" * MAX_DEPTH + " }"
    assert any("exceeds maximum operation depth" in e for e in await errors_of(indexed, deep))
    big = "{ sessions { " + "id " * MAX_TOKENS + "} }"
    errors = await errors_of(indexed, big)
    assert any(f"more than {MAX_TOKENS} tokens" in e for e in errors), errors


async def test_ordinary_queries_and_introspection_still_work(indexed: httpx.AsyncClient) -> None:
    query = "{ sessions { id title messages { role content citations { cid } } } }"
    assert await errors_of(indexed, query) == []
    types = (
        "{ __schema { types { name fields { name type { name ofType { name ofType { name "
        "ofType { name ofType { name } } } } } } } } }"
    )
    reply = await indexed.post("/graphql", json={"query": types})
    assert "errors" not in reply.json()
    assert any(t["name"] == "ChatSession" for t in reply.json()["data"]["__schema"]["types"])
