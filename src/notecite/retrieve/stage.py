"""The retrieval half of the ask pipeline: scope, embed, search, fuse, rerank, select, auto-RAG.

:class:`RetrievalStage` turns an AskRequest into ranked candidates and the ones kept for the
context; :class:`notecite.pipeline.AskPipeline` runs it, then assembles the context and
generates. It owns the query-embedding and search-result caches' use and the auto-RAG pass.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from notecite.config import AskSettings
from notecite.embed.base import Embedder, Vectors
from notecite.errors import EmbeddingError
from notecite.generate.base import LLM
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
from notecite.retrieve.timehints import TimeRange, parse_time_hint
from notecite.schemas.ask import AskRequest, AutoRagMode, DebugInfo, FolderSelection
from notecite.store.base import Store
from notecite.types import Vault

logger = logging.getLogger(__name__)


class RetrievalStage:
    """Finds the chunks that answer one AskRequest, with the given store, embedder and LLM."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm: LLM,
        settings: AskSettings,
        vaults: Sequence[Vault],
        folders_of: Callable[[Vault], list[str]],
        options: RetrievalOptions,
        *,
        caches: RetrievalCaches | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._settings = settings
        self._vaults = list(vaults)
        self._folders_of = folders_of
        self._options = options
        self._caches = caches
        self._reranker = reranker

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
