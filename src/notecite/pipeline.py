"""The ask pipeline: scope -> candidates -> rerank -> select -> generate -> validate citations.

Built by :class:`notecite.engine.Engine`, which owns the store, embedder and LLM; this module
orchestrates the ask stages only, through their public functions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from notecite.ask_types import (
    AskRequest,
    AskResponse,
    AutoRagMode,
    DebugInfo,
    ErrorInfo,
    FolderSelection,
    Reference,
    RetrievedChunk,
    Timings,
)
from notecite.config import AskSettings, GenerationSettings
from notecite.embed.base import Embedder, Vectors
from notecite.errors import EmbeddingError, LLMError
from notecite.generate.base import LLM, ContextSource, GenerationRequest
from notecite.generate.citations import FALLBACK_ANSWER, acknowledges_gap, validate_citations
from notecite.generate.context import ContextBudget, ContextPiece, assemble_context
from notecite.generate.prompts import answer_messages
from notecite.retrieve.autok import automatic_k
from notecite.retrieve.autorag import AutoRag, AutoRagOptions
from notecite.retrieve.cache import RetrievalCaches, vector_key
from notecite.retrieve.folders import (
    Scope,
    position_weight,
    rank_folders_with_llm,
    resolve_user_folder,
)
from notecite.retrieve.rerank import final_score, lexical_score
from notecite.retrieve.rerankers.base import Reranker
from notecite.retrieve.retriever import Candidate, Retrieval, RetrievalOptions, Retriever
from notecite.retrieve.terms import query_terms
from notecite.retrieve.timehints import TimeRange, parse_time_hint
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
        self._store = store
        self._options = options
        self._caches = caches
        self._reranker = reranker
        self._embedder = embedder
        self._llm = llm
        self._settings = settings
        self._generation = generation
        self._vaults = list(vaults)
        self._folders_of = folders_of

    # -- stages -----------------------------------------------------------------------------

    def _scopes(self, request: AskRequest, debug: DebugInfo) -> list[Scope]:
        available = [
            f"{v.name}/{f}" if f else v.name for v in self._vaults for f in self._folders_of(v)
        ]
        selection = FolderSelection(available=[a for a in available if "/" in a])
        debug.folder_selection = selection
        pairs: list[tuple[Vault, str]] = []
        if request.folders:
            selection.method = "user"
            for folder in request.folders:
                pairs.extend(resolve_user_folder(folder, self._vaults))
        elif (
            self._settings.folder_ranking and selection.available and self._llm.name != "extractive"
        ):
            labels = selection.available[: self._settings.max_folders_ranked]
            picked = rank_folders_with_llm(self._llm, request.question, labels, debug.notes)
            if picked:
                selection.method = "llm"
                by_name = {v.name: v for v in self._vaults}
                for label in picked:
                    name, _, folder = label.partition("/")
                    pairs.append((by_name[name], folder))
        pairs = list(dict.fromkeys(pairs))
        selection.selected = [f"{v.name}/{f}" if f else v.name for v, f in pairs]
        if not pairs:
            return [Scope(v, "", 1.0) for v in self._vaults]
        if selection.method == "user":
            # The user's folders are a filter, not a ranking: none is worth less than another.
            return [Scope(v, f, 1.0) for v, f in pairs]
        scopes = [Scope(v, f, position_weight(i)) for i, (v, f) in enumerate(pairs)]
        if selection.method == "llm":
            # The model's pick is a preference, not a filter: a folder it missed is still
            # searched, below every folder it picked.
            rest = position_weight(len(pairs))
            scopes.extend(Scope(v, "", rest) for v in self._vaults)
        return scopes

    def _select(self, candidates: Sequence[Candidate], embedded: bool, k: int) -> list[Candidate]:
        """Candidates over both thresholds (the vector one only when embedded), at most k."""
        ordered = list(candidates)
        if embedded:
            ordered = [c for c in ordered if c.score_vector >= self._settings.vector_threshold]
        return [c for c in ordered if c.gate >= self._settings.final_threshold][: min(8, k)]

    def _embed(self, question: str, debug: DebugInfo) -> Vectors:
        if self._caches is None:
            return self._embedder.embed_query(question)
        vector, hit = self._caches.embed_query(self._embedder, question)
        debug.cache.query_embedding = "hit" if hit else "miss"
        debug.cache.query_hit_rate = round(self._caches.queries.stats().hit_rate, 4)
        return vector

    def _retrieve(
        self,
        retriever: Retriever,
        question: str,
        query: Vectors | None,
        scopes: Sequence[Scope],
        per_scope: int,
        time_range: TimeRange | None,
        debug: DebugInfo,
        record: bool = True,
    ) -> Retrieval:
        """One retrieval, from the results cache when the index has not changed since."""

        def run() -> Retrieval:
            return retriever.retrieve(question, query, scopes, per_scope, time_range)

        if self._caches is None:
            return run()
        key = (
            repr(self._options),
            question,
            tuple((s.vault.id, s.folder, s.weight) for s in scopes),
            per_scope,
            time_range,
            vector_key(query),
        )
        retrieval, state = self._caches.search(self._store, key, run)
        if record:
            debug.cache.search_results = state
        debug.cache.results_hit_rate = round(self._caches.results.stats().hit_rate, 4)
        return retrieval

    def _regate(self, question: str, query: Vectors | None, candidates: list[Candidate]) -> None:
        """Score candidates found by other queries against the original question."""
        if query is not None:
            cosines = self._store.vector_scores(
                self._embedder.model_id, query, [c.rowid for c in candidates]
            )
            for cand in candidates:
                cand.score_vector = cosines.get(cand.rowid, 0.0)
        for cand in candidates:
            if self._options.reranker != "none":
                cand.lexical = lexical_score(question, cand.chunk.text, cand.chunk.heading_path)
            cand.gate = final_score(cand.score_vector * cand.folder_weight, cand.lexical)

    def _auto_rag(
        self,
        request: AskRequest,
        retriever: Retriever,
        query: Vectors | None,
        scopes: Sequence[Scope],
        time_range: TimeRange | None,
        retrieval: Retrieval,
        kept: list[Candidate],
        k: int,
        debug: DebugInfo,
    ) -> tuple[Retrieval, list[Candidate]]:
        mode: AutoRagMode = request.auto_rag or self._settings.auto_rag
        s = self._settings
        options = AutoRagOptions(
            mode=mode,
            min_score=s.auto_rag_min_score,
            min_kept=s.auto_rag_min_kept,
            timeout_s=s.auto_rag_timeout_s,
            multi_query=s.multi_query if request.multi_query is None else request.multi_query,
            rewrites=s.multi_query_rewrites,
        )
        auto = AutoRag(self._llm, self._embedder, options)
        debug.auto_rag = auto.decide(mode, retrieval.candidates, kept, query is not None)
        if not debug.auto_rag.triggered:
            return retrieval, kept
        deeper = s.hits_per_scope * s.auto_rag_depth

        def search(text: str, vector: Vectors | None) -> Retrieval:
            return self._retrieve(
                retriever, text, vector, scopes, deeper, time_range, debug, record=False
            )

        outcome = auto.run(
            request.question,
            query,
            retrieval,
            kept,
            k,
            debug.auto_rag,
            search,
            lambda cands: self._select(cands, query is not None, k),
            lambda cands: self._regate(request.question, query, cands),
        )
        return outcome.retrieval, outcome.kept

    def retrieve(
        self, request: AskRequest, debug: DebugInfo | None = None
    ) -> tuple[Retrieval, list[Candidate]]:
        """The retrieval half of :meth:`ask`: ranked candidates and the ones kept for the
        context (embedding, scopes, K, time hint, fusion, rerank, thresholds, auto-RAG).

        ``debug`` (a fresh one when None) receives notes, timings and the auto-RAG record.
        """
        debug = debug if debug is not None else DebugInfo(llm=self._llm.name)
        timings = debug.timings_ms
        t = time.perf_counter()
        query: Vectors | None
        try:
            query = self._embed(request.question, debug)
        except EmbeddingError as exc:
            query = None
            debug.notes.append(f"embedding failed ({exc}); keyword + recency retrieval used")
        timings.embed = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        scopes = self._scopes(request, debug)
        k = automatic_k(
            request.question,
            request.detail,
            narrow_folders=bool(request.folders),
            legacy_k=request.k,
            k_min=self._settings.k_min,
            k_default=self._settings.k_default,
            k_max=self._settings.k_max,
        )
        debug.k = k
        time_range = parse_time_hint(request.question)
        retriever = Retriever(
            self._store, self._embedder.model_id, self._options, reranker=self._reranker
        )
        per_scope = self._settings.hits_per_scope
        retrieval = self._retrieve(
            retriever, request.question, query, scopes, per_scope, time_range, debug
        )
        debug.notes.extend(retrieval.notes)
        timings.retrieve = (time.perf_counter() - t) * 1000 - retrieval.rerank_ms

        t = time.perf_counter()
        kept = self._select(retrieval.candidates, query is not None, k)
        if not kept and time_range is not None:
            # Dates in notes are often file times: a hint that leaves nothing is dropped.
            retrieval = self._retrieve(
                retriever, request.question, query, scopes, per_scope, None, debug
            )
            debug.notes.append(
                f"nothing relevant dated {time_range.phrase!r}; searched all dates instead"
            )
            kept = self._select(retrieval.candidates, query is not None, k)
            time_range = None
        timings.rerank = (time.perf_counter() - t) * 1000 + retrieval.rerank_ms

        t = time.perf_counter()
        retrieval, kept = self._auto_rag(
            request, retriever, query, scopes, time_range, retrieval, kept, k, debug
        )
        timings.auto_rag = (time.perf_counter() - t) * 1000

        return retrieval, kept

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
