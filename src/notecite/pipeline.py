"""The ask pipeline: scope -> candidates -> rerank -> select -> generate -> validate citations.

Built by :class:`notecite.engine.Engine`, which owns the store, embedder and LLM; this module
orchestrates the ask stages only, through their public functions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from notecite.config import AskSettings, GenerationSettings
from notecite.embed.base import Embedder
from notecite.errors import LLMError
from notecite.generate.base import LLM, ContextSource, GenerationRequest
from notecite.generate.citations import FALLBACK_ANSWER, acknowledges_gap, validate_citations
from notecite.generate.context import ContextBudget, ContextPiece, assemble_context
from notecite.generate.prompts import answer_messages
from notecite.retrieve.cache import RetrievalCaches
from notecite.retrieve.rerankers.base import Reranker
from notecite.retrieve.retriever import Candidate, Retrieval, RetrievalOptions
from notecite.retrieve.stage import RetrievalStage
from notecite.retrieve.terms import query_terms
from notecite.schemas.ask import (
    AskRequest,
    AskResponse,
    DebugInfo,
    ErrorInfo,
    Reference,
    RetrievedChunk,
    Timings,
)
from notecite.store.base import Store
from notecite.types import Vault

logger = logging.getLogger(__name__)

TokenCallback = Callable[[str], None]

AMBIGUOUS_ANSWER = "Your question has no words to search for; please say what you are looking for."
NO_CONTEXT_ANSWER = "I couldn't find anything relevant to that in your notes."
LLM_FAILED_ANSWER = "The language model failed, so here are the most relevant notes instead."


class AskPipeline:
    """Answers one AskRequest from the store with the given embedder and LLM."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm: LLM,
        settings: AskSettings,
        generation: GenerationSettings,
        vaults: Sequence[Vault],
        folders_of: Callable[[Vault], list[str]],
        options: RetrievalOptions,
        *,
        caches: RetrievalCaches | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self._options = options
        self._embedder = embedder
        self._llm = llm
        self._settings = settings
        self._generation = generation
        self._retrieval = RetrievalStage(
            store,
            embedder,
            llm,
            settings,
            vaults,
            folders_of,
            options,
            caches=caches,
            reranker=reranker,
        )

    def retrieve(
        self, request: AskRequest, debug: DebugInfo | None = None
    ) -> tuple[Retrieval, list[Candidate]]:
        """The retrieval half of :meth:`ask` (see :class:`RetrievalStage`)."""
        return self._retrieval.retrieve(request, debug)

    # -- the whole run ----------------------------------------------------------------------

    def ask(self, request: AskRequest, on_token: TokenCallback | None = None) -> AskResponse:
        started = time.perf_counter()
        debug = DebugInfo(llm=self._llm.name)
        timings = Timings()
        debug.timings_ms = timings

        def finish(response: AskResponse) -> AskResponse:
            timings.total = (time.perf_counter() - started) * 1000
            response.debug = debug if request.debug else None
            return response

        if not query_terms(request.question):
            return finish(
                AskResponse(
                    answer=AMBIGUOUS_ANSWER, abstained=True, abstain_reason="ambiguous_question"
                )
            )

        retrieval, kept = self.retrieve(request, debug)

        kept_ids = {c.rowid for c in kept}
        debug.retrieved_chunks = [
            RetrievedChunk(
                chunk_id=c.chunk.chunk_id,
                vault=c.chunk.vault,
                rel_path=c.chunk.rel_path,
                heading_path=c.chunk.heading_path,
                text=c.chunk.text,
                score_vector=round(c.score_vector, 6),
                score_dense=round(c.score_dense, 6),
                score_lexical=round(c.lexical, 6),
                score_final=round(c.final, 6),
                score_bm25=round(c.score_bm25, 6),
                score_gate=round(c.gate, 6),
                score_rerank=round(c.score_rerank, 6),
                rank=rank,
                kept=c.rowid in kept_ids,
            )
            for rank, c in enumerate(retrieval.candidates, start=1)
        ]
        debug.strategy = self._options.strategy
        debug.reranker = self._options.reranker
        if not kept:
            return finish(
                AskResponse(
                    answer=NO_CONTEXT_ANSWER, abstained=True, abstain_reason="no_relevant_context"
                )
            )
        return finish(self._generate(request, kept, debug, timings, on_token))

    def _generate(
        self,
        request: AskRequest,
        kept: Sequence[Candidate],
        debug: DebugInfo,
        timings: Timings,
        on_token: TokenCallback | None,
    ) -> AskResponse:
        pieces = [
            ContextPiece(
                index=i,
                vault=c.chunk.vault,
                rel_path=c.chunk.rel_path,
                heading_path=c.chunk.heading_path,
                text=c.chunk.text,
                line_start=c.chunk.line_start,
                line_end=c.chunk.line_end,
            )
            for i, c in enumerate(kept)
        ]
        budget = ContextBudget(
            max_tokens=(
                self._settings.context_tokens_local
                if self._llm.name == "local"
                else self._settings.context_tokens
            )
        )
        blocks = assemble_context(pieces, budget, self._embedder.count_tokens)
        sources = [
            ContextSource(f"N{n}", b.vault, b.rel_path, b.heading_path, b.text)
            for n, b in enumerate(blocks, start=1)
        ]
        by_cid = {
            s.cid: [kept[i] for i in sorted(b.members)]
            for s, b in zip(sources, blocks, strict=True)
        }
        in_context = [c for members in by_cid.values() for c in members]
        debug.context_blocks = len(blocks)
        generation = GenerationRequest(
            messages=answer_messages(
                request.question, sources, request.citation_style, request.detail
            ),
            question=request.question,
            sources=tuple(sources),
            citation_style=request.citation_style,
            temperature=self._generation.temperature,
            max_tokens=self._generation.max_tokens,
        )
        t = time.perf_counter()
        try:
            if on_token is None:
                raw = self._llm.generate(generation)
            else:
                streamed: list[str] = []
                for piece in self._llm.stream(generation):
                    streamed.append(piece)
                    on_token(piece)
                raw = "".join(streamed)
        except LLMError as exc:
            timings.generate = (time.perf_counter() - t) * 1000
            debug.uncited_references = True
            return AskResponse(
                answer=LLM_FAILED_ANSWER,
                references=[_reference(c) for c in in_context],
                error=ErrorInfo(type="LLMError", message=str(exc)),
            )
        timings.generate = (time.perf_counter() - t) * 1000

        validated = validate_citations(raw, sources, request.citation_style)
        debug.invalid_citations = list(validated.invalid)
        if validated.invalid:
            logger.warning("removed %d citation(s) matching no source", len(validated.invalid))
        cited = [c for cid in validated.cited for c in by_cid[cid]]
        cited_ids = {c.chunk.chunk_id for c in cited}
        for item in debug.retrieved_chunks:
            item.cited = item.chunk_id in cited_ids
        if cited:
            return AskResponse(answer=validated.text, references=[_reference(c) for c in cited])
        debug.uncited_references = True
        references = [_reference(c) for c in in_context]
        if acknowledges_gap(validated.text):
            answer = validated.text
        else:
            answer = FALLBACK_ANSWER
            debug.notes.append("answer carried no valid citation; replaced by the fallback")
        return AskResponse(
            answer=answer,
            references=references,
            abstained=True,
            abstain_reason="insufficient_information",
        )


def _reference(candidate: Candidate) -> Reference:
    chunk = candidate.chunk
    return Reference(
        vault=chunk.vault,
        rel_path=chunk.rel_path,
        heading_path=chunk.heading_path,
        chunk_index=chunk.chunk_index,
    )
