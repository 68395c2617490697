"""/chat: the exact camelCase contract, sessions, streaming, citation validation, failures."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from notecite import Settings, load_settings
from notecite.generate.answer import QUOTED_LABEL, REWRITTEN_LABEL
from notecite.testing import HANG, ProviderServer, ScriptedLLM
from tests.api.helpers import add_and_index, assert_error, parse_sse, running

pytestmark = pytest.mark.anyio

CITATION_KEYS = {
    *("cid", "noteId", "chunkId", "createdAt", "snippet", "score"),
    *("vault", "path", "section"),  # added for the web page's source panel
    *("lineStart", "lineEnd", "quote", "quoteLine"),  # the line that supports the answer
}
RETRIEVAL_KEYS = {"k", "strategy", "candidateCount", "rerankCount", "timeMs"}


def assert_contract(body: dict[str, Any]) -> None:
    """The response has exactly the fields of the /chat contract."""
    assert set(body) == {"answer", "citations", "sessionId", "meta"}
    assert {"model", "retrieval"} <= set(body["meta"])
    assert set(body["meta"]["retrieval"]) == RETRIEVAL_KEYS
    for citation in body["citations"]:
        assert set(citation) == CITATION_KEYS
        assert f"[{citation['cid']}]" in body["answer"]


async def test_a_message_is_answered_with_cited_notes(indexed: httpx.AsyncClient) -> None:
    response = await indexed.post("/chat", json={"message": "What is the Apollo budget?"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert_contract(body)
    assert "40000 euros" in body["answer"]
    cited = {c["noteId"] for c in body["citations"]}
    assert "notes/projects/apollo.md" in cited
    apollo = next(c for c in body["citations"] if c["noteId"] == "notes/projects/apollo.md")
    assert apollo["createdAt"].startswith("2025-01-10")
    assert body["meta"]["model"] == "extractive"
    assert body["meta"]["retrieval"]["strategy"] == "weighted"
    assert body["meta"]["retrieval"]["k"] >= 1

    detail = (await indexed.get(f"/sessions/{body['sessionId']}")).json()
    assert detail["title"] == "What is the Apollo budget?"
    user, assistant = detail["messages"]
    assert user["content"] == "What is the Apollo budget?"
    first_cid = body["citations"][0]["cid"].removeprefix("N")
    assert assistant["content"].startswith(body["answer"] + "\n\n---\n**Sources:**\n")
    assert f"- [{first_cid}] notes/projects/" in assistant["content"]


async def test_a_follow_up_in_the_session_is_condensed(indexed: httpx.AsyncClient) -> None:
    first = (await indexed.post("/chat", json={"message": "When is the Apollo launch?"})).json()
    second = await indexed.post(
        "/chat",
        json={"message": "And what about its budget?", "sessionId": first["sessionId"]},
    )
    body = second.json()
    assert body["sessionId"] == first["sessionId"]
    assert body["meta"]["query"] == "When is the Apollo launch? And what about its budget?"
    assert "40000 euros" in body["answer"]


async def test_vaults_and_folders_narrow_the_search(indexed: httpx.AsyncClient) -> None:
    scope = {"vaults": ["notes"], "folders": ["home"]}
    garden = await indexed.post(
        "/chat", json={"message": "When should I water the tomatoes?", **scope}
    )
    assert {c["noteId"] for c in garden.json()["citations"]} == {"notes/home/garden.md"}
    apollo = await indexed.post("/chat", json={"message": "When is the Apollo launch?", **scope})
    assert all("apollo" not in c["noteId"] for c in apollo.json()["citations"])


async def test_a_streamed_answer_is_token_events_then_one_final_event(
    indexed: httpx.AsyncClient,
) -> None:
    response = await indexed.post(
        "/chat", json={"message": "What is the Apollo budget?", "stream": True}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names[-1] == "final"
    assert set(names[:-1]) == {"token"}
    final = events[-1][1]
    assert_contract(final)
    assert "".join(data["text"] for _, data in events[:-1]) == final["answer"]
    stored = (await indexed.get(f"/sessions/{final['sessionId']}")).json()["messages"]
    assert [m["role"] for m in stored] == ["user", "assistant"]


async def test_unknown_sessions_and_vaults_are_404_another_tenant_403(
    indexed: httpx.AsyncClient,
) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for stream in (False, True):
        assert_error(
            await indexed.post(
                "/chat", json={"message": "hi", "sessionId": unknown, "stream": stream}
            ),
            404,
            "SessionNotFoundError",
        )
    assert_error(
        await indexed.post("/chat", json={"message": "hi", "tenantId": "acme"}),
        403,
        "ForbiddenError",
    )
    ok = await indexed.post("/chat", json={"message": "hi", "tenantId": "default"})
    assert ok.status_code == 200, ok.text
    assert_error(
        await indexed.post("/chat", json={"message": "hi", "vaults": ["nope"]}),
        404,
        "NotFoundError",
    )


async def test_bad_chat_requests_are_422(client: httpx.AsyncClient) -> None:
    assert_error(await client.post("/chat", json={"message": "x" * 2001}), 422, "ValidationError")
    assert_error(await client.post("/chat", json={"message": ""}), 422, "ValidationError")
    assert_error(
        await client.post("/chat", json={"message": "hi", "colour": "red"}), 422, "ValidationError"
    )
    bad = await client.post(
        "/chat", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert_error(bad, 422, "ValidationError")


# -- citation validation against a real OpenAI-compatible server on 127.0.0.1 ---------------


def scripted_settings(home: Path, server: ProviderServer) -> Settings:
    """The openai provider pointed at ``server``, with a short timeout and no retries."""
    return load_settings(
        home=home,
        embedder={"name": "hash"},
        llm="openai",
        generation={"base_url": server.url + "/v1", "timeout_s": 0.5, "retries": 0},
        ask={"folder_ranking": False},
    )


@pytest.fixture
def answering(
    tmp_path: Path, notes_dir: Path
) -> Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]:
    """``async with answering(content) as client``: the LLM answers ``content`` every time."""

    @asynccontextmanager
    async def start(content: str) -> AsyncIterator[httpx.AsyncClient]:
        with ProviderServer(ScriptedLLM(content)) as server:
            async with running(scripted_settings(tmp_path / "home2", server)) as client:
                await add_and_index(client, "notes", notes_dir)
                yield client

    return start


@pytest.mark.parametrize(
    ("raw", "answer", "cids", "invalid"),
    [
        ("The budget is 40000 euros [N1].", "The budget is 40000 euros [N1].", ["N1"], 0),
        ("The budget is 40000 euros [N1][N42].", "The budget is 40000 euros [N1].", ["N1"], 1),
        # a claim a line of the notes supports gets that line's citation, whatever the
        # model cited; one no line supports goes
        ("The budget is 40000 euros [N42].", "The budget is 40000 euros [N1].", ["N1"], 1),
        ("The budget is 40000 euros.", "The budget is 40000 euros [N1].", ["N1"], 0),
        # an answer with no supported claim: the lines closest to the question, quoted
        (
            "The budget is 99 euros [N1].",
            f"{QUOTED_LABEL}\nThe Apollo budget is 40000 euros, approved by Maria in January "
            "[N1]. The Apollo launch is scheduled for March 14 at the Lisbon office [N2].",
            ["N1", "N2"],
            0,
        ),
        (
            "The notes do not mention who designed the rocket.",
            "The notes do not mention who designed the rocket.",
            [],
            0,
        ),
    ],
    ids=["valid", "invalid-removed", "only-invalid", "none", "unsupported", "uncertainty"],
)
async def test_citations_are_validated(
    answering: Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]],
    raw: str,
    answer: str,
    cids: list[str],
    invalid: int,
) -> None:
    async with answering(raw) as client:
        response = await client.post("/chat", json={"message": "What is the Apollo budget?"})
        body = response.json()
        assert response.status_code == 200, body
        assert_contract(body)
        assert body["answer"] == answer
        assert [c["cid"] for c in body["citations"]] == cids
        assert body["meta"]["invalidCitations"] == invalid
        # quoted lines in place of an answer with no supported claim are an abstention
        assert body["meta"]["abstained"] is (answer.startswith(QUOTED_LABEL) or not cids)
        assert body["meta"]["model"] == "gpt-4o-mini"
        stored = (await client.get(f"/sessions/{body['sessionId']}")).json()["messages"][1]
        assert ("**Sources:**" in stored["content"]) is bool(cids)


async def test_an_answer_written_again_from_the_quoted_lines_is_not_an_abstention(
    tmp_path: Path, notes_dir: Path
) -> None:
    llm = ScriptedLLM("The budget is 99 euros [N1].", "The Apollo budget is 40000 euros [N1].")
    with ProviderServer(llm) as server:
        async with running(scripted_settings(tmp_path / "home2", server)) as client:
            await add_and_index(client, "notes", notes_dir)
            response = await client.post("/chat", json={"message": "What is the Apollo budget?"})
    body = response.json()
    assert response.status_code == 200, body
    assert_contract(body)
    assert body["answer"].startswith(
        f"The Apollo budget is 40000 euros [N1].\n\n{REWRITTEN_LABEL}\n"
    )
    assert body["meta"]["abstained"] is False
    assert body["citations"][0]["path"] == "projects/apollo.md"


async def test_an_llm_timeout_is_a_504_with_the_sources(tmp_path: Path, notes_dir: Path) -> None:
    with ProviderServer() as server:
        server.fail("chat", HANG)
        async with running(scripted_settings(tmp_path / "home2", server)) as client:
            await add_and_index(client, "notes", notes_dir)
            response = await client.post("/chat", json={"message": "What is the Apollo budget?"})
            streamed = await client.post(
                "/chat", json={"message": "What is the Apollo budget?", "stream": True}
            )
    assert response.status_code == 504
    body = response.json()
    assert body["error"]["type"] == "LLMTimeoutError"
    assert body["citations"]
    assert body["answer"].startswith("The language model failed")
    name, final = parse_sse(streamed.text)[-1]
    assert name == "final"
    assert final["error"]["type"] == "LLMTimeoutError"
    assert final["citations"]
