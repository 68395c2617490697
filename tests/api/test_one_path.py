"""One retrieval path and one answer path: /chat and /ask build their context the same way,
a session's rag_top_k is honoured up to 10, and search ranks as ask's candidates do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from notecite import Engine, Settings
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import ScriptedLLM, write_files
from tests.api.helpers import add_and_index

pytestmark = pytest.mark.anyio

# Ten short notes on one topic, each its own chunk: nothing to merge between them.
TEN_NOTES = {
    f"birds/bird{n}.md": f"# Bird {n}\n\nThe heron number {n} nests by the river in spring.\n"
    for n in range(1, 13)
}

# One long section cut into overlapping windows: adjacent windows of one note must become one
# block of context, on /ask and on /chat alike.
_LINES = [
    f"Line {n}: the lighthouse keeper logs the lamp, the fog horn and the tide at dawn."
    for n in range(1, 90)
]
LONG_NOTE = {"keeper.md": "# Keeper\n\n## Log\n\n" + "\n".join(_LINES) + "\n"}


async def _chat(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    reply = await client.post("/chat", json=body)
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


async def test_a_session_with_top_k_10_and_threshold_0_gets_10_chunks(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    status = await add_and_index(client, "birds", write_files(tmp_path / "v", TEN_NOTES))
    assert status["state"] == "done", status
    created = await client.post(
        "/sessions", json={"settings": {"rag_top_k": 10, "rag_threshold": 0}}
    )
    assert created.status_code == 201, created.text
    session = created.json()["id"]

    data = await _chat(
        client, {"message": "Where does the heron nest?", "sessionId": session, "debug": True}
    )

    assert data["meta"]["retrieval"]["k"] == 10  # 9 and 10 used to act as 8
    assert data["debug"]["k"] == 10
    assert data["debug"]["context_blocks"] == 10
    kept = [c for c in data["debug"]["retrieved_chunks"] if c["kept"]]
    assert len(kept) == 10


async def test_chat_merges_overlapping_windows_exactly_as_ask_does(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    status = await add_and_index(client, "keeper", write_files(tmp_path / "k", LONG_NOTE))
    assert status["state"] == "done", status
    question = "What does the lighthouse keeper log at dawn?"

    asked = await client.post("/ask", json={"question": question, "debug": True})
    assert asked.status_code == 200, asked.text
    ask_debug = asked.json()["debug"]
    chatted = await _chat(client, {"message": question, "debug": True})
    chat_debug = chatted["debug"]

    ask_kept = [c["chunk_id"] for c in ask_debug["retrieved_chunks"] if c["kept"]]
    chat_kept = [c["chunk_id"] for c in chat_debug["retrieved_chunks"] if c["kept"]]
    assert len(ask_kept) > 1  # several overlapping windows were kept ...
    assert chat_kept == ask_kept
    blocks = ask_debug["context_blocks"]
    assert blocks < len(ask_kept)  # ... and adjacent ones were merged into one block
    assert chat_debug["context_blocks"] == blocks
    assert chatted["meta"]["retrieval"]["k"] == len(ask_kept)
    assert {c["cid"] for c in chatted["citations"]} <= {f"N{n}" for n in range(1, blocks + 1)}


def test_search_ranks_a_query_as_the_ask_pipeline_ranks_its_candidates(
    api_settings: Settings, notes_dir: Path
) -> None:
    settings = api_settings.model_copy(
        update={"ask": api_settings.ask.model_copy(update={"folder_ranking": False})}
    )
    with Engine(settings) as engine:
        engine.add_vault("notes", notes_dir)
        engine.index()
        for query in ("When is the Apollo launch?", "budget approved by Maria", "standup"):
            hits = engine.search(query, k=10)
            retrieved = engine.retrieve(AskRequest(question=query))
            ranked = [c.chunk.chunk_id for c in retrieved.candidates[:10]]
            assert [h.chunk_id for h in hits] == ranked
            assert [h.score for h in hits] == [c.final for c in retrieved.candidates[:10]]


@pytest.mark.parametrize("context", ["chunks", "evidence"])
def test_chat_gives_the_model_the_same_context_blocks_as_ask(
    api_settings: Settings, tmp_path: Path, context: str
) -> None:
    """What the model is shown, compared call for call: the merged blocks of /ask (whole, or
    cut down to their evidence lines)."""
    llm = ScriptedLLM("The keeper logs the lamp [N1].")
    settings = api_settings.model_copy(
        update={"ask": api_settings.ask.model_copy(update={"context": context})}
    )
    with Engine(settings, llm=llm) as engine:
        engine.add_vault("keeper", write_files(tmp_path / "k", LONG_NOTE))
        engine.index()
        question = "What does the lighthouse keeper log at dawn?"
        engine.ask(AskRequest(question=question))
        engine.chat(ChatRequest(message=question))
    ask_call, chat_call = llm.answer_calls
    assert len(ask_call.sources) < len(LONG_NOTE["keeper.md"].splitlines())
    assert chat_call.sources == ask_call.sources
    if context == "chunks":
        merged = [s for s in ask_call.sources if s.text.count("\n") > 40]
        assert merged  # at least one block holds more than one window
    else:
        assert all(s.text.count("\n") < 20 for s in ask_call.sources)
        assert any("log" in s.text for s in ask_call.sources)
