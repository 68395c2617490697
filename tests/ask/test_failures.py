"""When a provider fails: keyword retrieval without embeddings, references without an LLM."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from notecite.errors import LLMError
from notecite.generate.answer import LLM_FAILED_ANSWER
from notecite.retrieve.stage import RECENT_NOTES
from notecite.schemas.ask import AskRequest, AskResponse, DebugInfo, ErrorInfo
from notecite.testing import (
    HANG,
    DelegatingEmbedder,
    Fault,
    ProviderServer,
    ScriptedLLM,
    write_files,
)
from tests.ask.conftest import MakeEngine

APOLLO = "When is the Apollo launch scheduled?"


def query_failing() -> DelegatingEmbedder:
    """Indexes like the ``hash`` embedder, but every query embedding fails."""
    return DelegatingEmbedder(fail_queries="embedding server at http://127.0.0.1:9 is unreachable")


def debug_of(response: AskResponse) -> DebugInfo:
    assert response.debug is not None
    return response.debug


def test_an_embedding_failure_falls_back_to_keyword_retrieval(make_engine: MakeEngine) -> None:
    embedder = query_failing()
    engine = make_engine(embedder=embedder)

    response = engine.ask(AskRequest(question=APOLLO, debug=True))

    assert len(embedder.queries) == 1
    assert not response.abstained
    assert response.error is None
    assert "March 14" in response.answer
    assert ("v1", "projects/work/apollo.md") in {(r.vault, r.rel_path) for r in response.references}
    debug = debug_of(response)
    assert any("embedding failed" in n and "keyword" in n for n in debug.notes)
    assert debug.retrieved_chunks
    assert debug.retrieved_chunks[0].rel_path == "projects/work/apollo.md"


def test_keyword_fallback_still_respects_folders(make_engine: MakeEngine) -> None:
    engine = make_engine(embedder=query_failing())
    response = engine.ask(
        AskRequest(question="Zephyr Apollo launch", folders=["projects"], debug=True)
    )
    paths = {c.rel_path for c in debug_of(response).retrieved_chunks}
    assert paths
    assert all(p.startswith("projects/") for p in paths)


def test_with_no_embedding_and_no_keyword_match_the_most_recent_notes_are_the_context(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    """The AuroraNotes fallback: nothing can be searched, so the newest notes are used, and
    the answer says so in its strategy."""
    llm = ScriptedLLM("The newest entry is the one of day 6 [N1].")
    engine = make_engine(
        llm=llm, embedder=query_failing(), indexed=False, ask={"folder_ranking": False}
    )
    dated = {
        f"note{day}.md": f"---\ndate: 2024-05-0{day}\n---\n# Day {day}\n\nEntry of day {day}.\n"
        for day in range(1, 7)
    }
    engine.add_vault("v", write_files(tmp_path / "dated", dated))
    engine.index()

    response = engine.ask(AskRequest(question="quantum chromodynamics", debug=True))

    assert not response.abstained
    debug = debug_of(response)
    assert debug.strategy == RECENT_NOTES
    assert any("most recent notes" in note for note in debug.notes)
    kept = [c.rel_path for c in debug.retrieved_chunks if c.kept]
    assert kept == [f"note{day}.md" for day in range(6, 6 - len(kept), -1)]  # newest first
    assert len(kept) == debug.k
    assert [r.rel_path for r in response.references] == ["note6.md"]


def test_an_llm_error_returns_the_references_and_the_error(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(error=LLMError("the model server crashed"))
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO, debug=True))

    assert response.error == ErrorInfo(type="LLMError", message="the model server crashed")
    assert response.answer == LLM_FAILED_ANSWER
    assert not response.abstained
    kept = [c for c in debug_of(response).retrieved_chunks if c.kept]
    assert kept
    assert [(r.vault, r.rel_path, r.heading_path) for r in response.references] == [
        (c.vault, c.rel_path, c.heading_path) for c in kept
    ]
    assert debug_of(response).uncited_references


def test_an_llm_error_while_streaming_returns_the_references(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(error=LLMError("stream broke"))
    pieces: list[str] = []
    response = make_engine(llm=llm).ask(AskRequest(question=APOLLO), pieces.append)
    assert response.error is not None
    assert response.error.message == "stream broke"
    assert response.references
    assert pieces == []


def openai_settings(url: str, **generation: Any) -> dict[str, Any]:
    return {"llm": "openai", "generation": {"base_url": url + "/v1", "model": "m", **generation}}


def test_an_openai_server_answering_500_gives_references_and_error(
    make_engine: MakeEngine,
) -> None:
    with ProviderServer() as server:
        server.fail("chat", Fault(500, message="overloaded", headers={"Retry-After": "0"}))
        settings = openai_settings(server.url, retries=1)
        settings["ask"] = {**settings.get("ask", {}), "folder_ranking": "llm"}
        engine = make_engine(**settings)
        response = engine.ask(AskRequest(question=APOLLO, debug=True))

    assert response.error is not None
    assert response.error.type == "LLMError"
    assert "500" in response.error.message
    assert response.answer == LLM_FAILED_ANSWER
    assert response.references
    debug = debug_of(response)
    assert debug.llm == "openai"
    assert any("folder ranking failed (LLMError)" in n for n in debug.notes)
    # the folder ranking and the answer were each tried twice (retries=1)
    assert len(server.received) == 4
    assert all(r.path == "/v1/chat/completions" for r in server.received)


def test_an_openai_server_that_hangs_times_out_with_references(make_engine: MakeEngine) -> None:
    with ProviderServer() as server:
        server.fail("chat", HANG)
        engine = make_engine(
            **openai_settings(server.url, retries=0, timeout_s=0.3), ask={"folder_ranking": False}
        )
        started = time.monotonic()
        response = engine.ask(AskRequest(question=APOLLO))
        elapsed = time.monotonic() - started

    assert elapsed < 3
    assert response.error is not None
    assert "timed out" in response.error.message
    assert response.references
    assert len(server.received) == 1


def test_the_answer_is_asked_for_at_temperature_0_by_default(make_engine: MakeEngine) -> None:
    """The most likely words: the same question over the same notes gets the same answer."""
    with ProviderServer(ScriptedLLM("It is on March 14 [N1].")) as server:
        engine = make_engine(**openai_settings(server.url), ask={"folder_ranking": False})
        engine.ask(AskRequest(question=APOLLO))
    (body,) = server.requests_to("chat")
    assert body["temperature"] == 0.0
