"""Retrieval for chat through the ask pipeline, stopped before it writes an answer.

Chat writes its own answer (with history, the session's system prompt and its settings), so
the pipeline runs with an LLM wrapper that forwards every call the pipeline makes for its
own stages (folder ranking, query rewriting) and answers the final generation with nothing.
The chunks the pipeline kept, with their scores, come back in its debug information.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from notecite.config import AskSettings
from notecite.generate.base import LLM, ContextSource, GenerationRequest
from notecite.schemas.ask import MAX_QUESTION_CHARS, AskRequest, AskResponse, DebugInfo, Detail
from notecite.schemas.chat import SessionSettings

AskRunner = Callable[[AskRequest, LLM, AskSettings], AskResponse]
"""Runs the ask pipeline for a request with the given LLM and settings (built by the Engine)."""


class _StopBeforeAnswer:
    """An LLM that forwards calls without sources and answers calls with sources with ''."""

    def __init__(self, llm: LLM) -> None:
        self._llm = llm

    @property
    def name(self) -> str:
        return self._llm.name

    @property
    def model_id(self) -> str:
        return self._llm.model_id

    def generate(self, request: GenerationRequest) -> str:
        if request.sources:  # the answer itself: chat generates it
            return ""
        return self._llm.generate(request)

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        if request.sources:
            return iter(())
        return self._llm.stream(request)


@dataclass(frozen=True)
class RetrievedSource:
    """A chunk given to the model, under the id it is cited by."""

    cid: str
    chunk_id: str
    vault: str
    rel_path: str
    heading_path: str
    text: str
    score: float

    @property
    def label(self) -> str:
        """``vault/path > heading`` as the sources list shows it."""
        where = f"{self.vault}/{self.rel_path}"
        return f"{where} > {self.heading_path}" if self.heading_path else where

    def context(self) -> ContextSource:
        """The source as the prompt shows it."""
        return ContextSource(self.cid, self.vault, self.rel_path, self.heading_path, self.text)


@dataclass(frozen=True)
class Retrieval:
    """What retrieval found, the figures of ``meta.retrieval`` and the pipeline's debug."""

    sources: tuple[RetrievedSource, ...] = ()
    strategy: str = "none"
    candidate_count: int = 0
    rerank_count: int = 0
    time_ms: float = 0.0
    debug: DebugInfo | None = None


def retrieve(
    run: AskRunner,
    query: str,
    *,
    vaults: Sequence[str],
    folders: Sequence[str],
    settings: SessionSettings,
    llm: LLM,
    ask: AskSettings,
    detail: Detail = "normal",
) -> Retrieval:
    """The chunks for ``query`` that pass ``rag_threshold``, at most ``rag_top_k`` of them."""
    request = AskRequest(
        question=query[:MAX_QUESTION_CHARS],
        vaults=list(vaults),
        folders=list(folders),
        k=settings.rag_top_k,
        detail=detail,
        debug=True,
    )
    tuned = ask.model_copy(
        update={
            "final_threshold": settings.rag_threshold,
            "k_min": 1,
            "k_max": max(ask.k_max, settings.rag_top_k),
        }
    )
    started = time.perf_counter()
    response = run(request, _StopBeforeAnswer(llm), tuned)
    elapsed = (time.perf_counter() - started) * 1000
    debug = response.debug
    if debug is None:
        return Retrieval(time_ms=elapsed)
    kept = [c for c in debug.retrieved_chunks if c.kept][: settings.rag_top_k]
    sources = tuple(
        RetrievedSource(
            cid=f"N{number}",
            chunk_id=c.chunk_id,
            vault=c.vault,
            rel_path=c.rel_path,
            heading_path=c.heading_path,
            text=c.text,
            score=c.score_gate,
        )
        for number, c in enumerate(kept, start=1)
    )
    passed = sum(1 for c in debug.retrieved_chunks if c.score_gate >= settings.rag_threshold)
    return Retrieval(
        sources=sources,
        strategy=debug.strategy or "hybrid",
        candidate_count=len(debug.retrieved_chunks),
        rerank_count=passed,
        time_ms=round(elapsed, 3),
        debug=debug,
    )
