"""Candidate retrieval for one question: search each scope, fuse signals, weight, rerank.

The result is every candidate considered, with every score, ranked by ``final``. Two scores
play different parts: ``final`` orders the candidates (strategy + rerank), while ``gate``
(the seed formula 0.7 x folder-weighted cosine + 0.3 x lexical) is what the calibrated
thresholds are compared with, so abstention does not shift when the ranking strategy does.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from notecite.config import Settings
from notecite.embed.base import Vectors
from notecite.errors import RerankError, StoreError
from notecite.filters import Condition
from notecite.retrieve.field_weights import candidate_weights, split_weights
from notecite.retrieve.folders import Scope
from notecite.retrieve.fusion import FusionWeights, fuse, min_max
from notecite.retrieve.releases import asks_when_released, is_release_note
from notecite.retrieve.rerank import final_score, lexical_score
from notecite.retrieve.rerankers.base import Passage, Reranker
from notecite.retrieve.superseded import asks_for_superseded, is_superseded
from notecite.retrieve.timehints import TimeRange
from notecite.store.base import Store, StoredChunk, cosine_and_dense
from notecite.types import SearchFilter, SearchResult


@dataclass
class Candidate:
    """One chunk considered for the context, with every score that placed it."""

    rowid: int
    chunk: StoredChunk
    score_vector: float  # chunk cosine: what the calibrated gate compares
    score_bm25: float
    folder_weight: float
    score_dense: float = 0.0  # cosine mixed with the best sentence: what fusion ranks by
    type_weight: float = 1.0
    recency: float = 0.5
    fused: float = 0.0
    lexical: float = 0.0
    gate: float = 0.0
    final: float = 0.0
    score_rerank: float = 0.0

    @classmethod
    def unscored(cls, chunk: StoredChunk) -> Candidate:
        """``chunk`` as a candidate no search scored (a recent note, a note named outright)."""
        return cls(
            rowid=chunk.rowid, chunk=chunk, score_vector=0.0, score_bm25=0.0, folder_weight=1.0
        )

    def as_search_result(self) -> SearchResult:
        """The candidate as search returns it (``score`` is its final score)."""
        chunk = self.chunk
        return SearchResult(
            vault=chunk.vault,
            rel_path=chunk.rel_path,
            heading_path=chunk.heading_path,
            chunk_index=chunk.chunk_index,
            chunk_id=chunk.chunk_id,
            text=chunk.text,
            title=chunk.title,
            line_start=chunk.line_start,
            line_end=chunk.line_end,
            score_vector=self.score_vector,
            score_bm25=self.score_bm25,
            score=self.final,
            note_date=chunk.note_date,
        )


@dataclass(frozen=True)
class RetrievalOptions:
    """How to retrieve: fusion strategy, weights, recency, doc-type weights and rerank."""

    strategy: str = "weighted"
    reranker: str = "lexical"
    weights: FusionWeights = field(default_factory=FusionWeights)
    sentence_weight: float = 0.0
    recency_half_life_days: float = 365.0
    time_hint_recency_weight: float = 0.35
    release_weight: float = 1.0
    superseded_weight: float = 1.0
    doc_type_weights: Mapping[str, float] = field(default_factory=dict)
    # [retrieval.weights.<key>] of every key but type (its weights are doc_type_weights)
    field_weights: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    max_candidates: int = 200
    keyword_depth: int = 1  # BM25 hits per scope, as a multiple of the vector search's
    rerank_depth: int = 60
    model_rerank_depth: int = 20
    model_rerank_weight: float = 0.5

    @classmethod
    def from_settings(cls, settings: Settings, strategy: str | None = None) -> RetrievalOptions:
        """The options of ``settings`` (``strategy`` overrides the configured one)."""
        r = settings.retrieval
        types, others = split_weights(r.doc_type_weights, r.weights)
        return cls(
            strategy=strategy or r.strategy,
            reranker=r.reranker,
            weights=FusionWeights(r.vector_weight, r.keyword_weight, r.recency_weight, r.rrf_k),
            sentence_weight=r.sentence_weight,
            recency_half_life_days=r.recency_half_life_days,
            time_hint_recency_weight=r.time_hint_recency_weight,
            release_weight=r.release_weight,
            superseded_weight=r.superseded_weight,
            doc_type_weights=types,
            field_weights=others,
            max_candidates=settings.ask.max_candidates,
            keyword_depth=settings.ask.keyword_depth,
            rerank_depth=r.rerank_depth,
            model_rerank_depth=r.model_rerank_depth,
            model_rerank_weight=r.model_rerank_weight,
        )


@dataclass
class Retrieval:
    """Ranked candidates plus notes on what happened (for the debug view)."""

    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)
    rerank_ms: float = 0.0


def recency_score(moment: datetime | None, now: float, half_life_days: float) -> float:
    """1.0 for now, 0.5 one half-life ago; 0.5 (neutral) for notes with no date."""
    if moment is None:
        return 0.5
    age_days = max(0.0, (now - moment.timestamp()) / 86400.0)
    return float(0.5 ** (age_days / max(half_life_days, 1e-6)))


class Retriever:
    """Finds and scores candidate chunks in a store for one embedding model."""

    def __init__(
        self,
        store: Store,
        model_id: str,
        options: RetrievalOptions,
        reranker: Reranker | None = None,
        conditions: tuple[Condition, ...] = (),
    ) -> None:
        self._store = store
        self._model_id = model_id
        self._options = options
        self._reranker = reranker
        self._conditions = conditions

    def _search_scopes(
        self,
        question: str,
        query: Vectors | None,
        scopes: Sequence[Scope],
        per_scope: int,
        time_range: TimeRange | None,
        notes: list[str],
    ) -> tuple[dict[int, float], dict[int, float], dict[int, float], dict[int, float]]:
        """Cosine, dense (cosine mixed with the best sentence), BM25 and folder weight of
        every chunk found in any scope: the ``per_scope`` nearest by vector and the
        ``per_scope`` x ``keyword_depth`` best by BM25 (a chunk the vector search finds that
        BM25 ranks past the first few keeps its keyword score)."""
        strategy = self._options.strategy
        sentence_weight = self._options.sentence_weight
        use_vector = query is not None and strategy != "bm25"
        use_bm25 = query is None or strategy not in ("vector", "vector_lexical")
        cosine: dict[int, float] = {}
        vector: dict[int, float] = {}
        bm25: dict[int, float] = {}
        weight: dict[int, float] = {}
        for scope in scopes:
            flt = SearchFilter(
                vault_ids=(scope.vault.id,),
                folders=(scope.folder,) if scope.folder else (),
                since=time_range.since if time_range else None,
                until=time_range.last_moment if time_range else None,
                frontmatter=self._conditions,
            )
            try:
                if use_vector and query is not None:
                    for hit in self._store.vector_search(
                        self._model_id, query, flt, per_scope, sentence_weight
                    ):
                        cosine[hit.chunk_rowid] = hit.score
                        vector[hit.chunk_rowid] = hit.ranking_score
                        weight[hit.chunk_rowid] = max(
                            weight.get(hit.chunk_rowid, 0.0), scope.weight
                        )
                if use_bm25:
                    keyword_hits = per_scope * self._options.keyword_depth
                    for hit in self._store.lexical_search(question, flt, keyword_hits):
                        bm25[hit.chunk_rowid] = max(bm25.get(hit.chunk_rowid, 0.0), hit.score)
                        weight[hit.chunk_rowid] = max(
                            weight.get(hit.chunk_rowid, 0.0), scope.weight
                        )
            except StoreError as exc:
                notes.append(f"scope {scope.label} failed: {exc}")
        if use_vector and query is not None:
            missing = [rowid for rowid in bm25 if rowid not in vector]
            found_cosine, found_dense = cosine_and_dense(
                self._store, self._model_id, query, missing, sentence_weight
            )
            cosine.update(found_cosine)
            vector.update(found_dense)
        return cosine, vector, bm25, weight

    def retrieve(
        self,
        question: str,
        query: Vectors | None,
        scopes: Sequence[Scope],
        per_scope: int,
        time_range: TimeRange | None = None,
    ) -> Retrieval:
        """Candidates from every scope, ranked by ``final``."""
        options = self._options
        notes: list[str] = []
        cosine, vector, bm25, weight = self._search_scopes(
            question, query, scopes, per_scope, time_range, notes
        )
        chunks = self._store.fetch_chunks(list(weight))
        now = time.time()
        recency = {
            rowid: recency_score(chunk.note_date, now, options.recency_half_life_days)
            for rowid, chunk in chunks.items()
        }
        weights = options.weights
        if time_range is not None:
            weights = FusionWeights(
                weights.vector, weights.keyword, options.time_hint_recency_weight, weights.rrf_k
            )
            notes.append(f"time hint {time_range.phrase!r}: notes filtered by date")
        if query is None:
            # Keyword + recency fallback: the normalised BM25 stands in for similarity.
            keyword = min_max(bm25) if len(bm25) > 1 else dict.fromkeys(bm25, 1.0)
            vector = {r: 0.8 * keyword[r] + 0.2 * recency.get(r, 0.5) for r in bm25}
            cosine = vector
            strategy = "vector_lexical"
        else:
            strategy = options.strategy
        fused = fuse(strategy, vector, bm25, recency, weights)
        note_weights = candidate_weights(
            self._store, chunks, options.doc_type_weights, options.field_weights
        )
        releases = options.release_weight != 1.0 and asks_when_released(question)
        if releases:
            notes.append(
                f"a question about a release: release notes weighted x{options.release_weight:g}"
            )
        # a legacy or archived note is weighed down unless the question asks for old things
        superseded = options.superseded_weight != 1.0 and not asks_for_superseded(question)
        weighed_down = 0
        candidates = []
        for rowid, score in fused.items():
            chunk = chunks.get(rowid)
            if chunk is None:
                continue
            type_weight = note_weights.get(rowid, 1.0)
            if releases and is_release_note(chunk.rel_path, chunk.title):
                type_weight *= options.release_weight
            if superseded and is_superseded(chunk.rel_path, chunk.title):
                type_weight *= options.superseded_weight
                weighed_down += 1
            candidates.append(
                Candidate(
                    rowid=rowid,
                    chunk=chunk,
                    score_vector=cosine.get(rowid, 0.0),
                    score_dense=vector.get(rowid, 0.0),
                    score_bm25=bm25.get(rowid, 0.0),
                    folder_weight=weight.get(rowid, 1.0),
                    type_weight=type_weight,
                    recency=recency.get(rowid, 0.5),
                    fused=score * weight.get(rowid, 1.0) * type_weight,
                )
            )
        if weighed_down:
            notes.append(
                f"{weighed_down} candidate(s) of notes named legacy, deprecated, archived or "
                f"obsolete weighted x{options.superseded_weight:g}"
            )
        candidates.sort(key=lambda c: (-c.fused, c.rowid))
        candidates = candidates[: options.max_candidates]
        self._rerank(question, candidates, seed=strategy == "vector_lexical")
        candidates.sort(key=lambda c: (-c.final, c.rowid))
        started = time.perf_counter()
        if self._reranker is not None and candidates:
            self._model_rerank(question, candidates, notes)
        return Retrieval(candidates, notes, (time.perf_counter() - started) * 1000)

    def _model_rerank(self, question: str, candidates: list[Candidate], notes: list[str]) -> None:
        """Mix a model's scores into the top ``model_rerank_depth`` candidates' ``final``.

        ``final = (1 - w) x final + w x model``, the model's scores min-max normalised over
        the re-scored candidates; the others count as the model's lowest score (0).
        """
        assert self._reranker is not None
        depth = self._options.model_rerank_depth
        weight = self._options.model_rerank_weight
        top = candidates[:depth]
        passages = [Passage(c.chunk.text, c.chunk.title, c.chunk.heading_path) for c in top]
        try:
            raw = self._reranker.score(question, passages)
        except RerankError as exc:
            notes.append(f"reranker {self._reranker.name} failed ({exc}); fused order kept")
            return
        scaled = min_max(dict(enumerate(raw)))
        for position, cand in enumerate(candidates):
            cand.score_rerank = raw[position] if position < len(top) else 0.0
            model = scaled.get(position, 0.0) if position < len(top) else 0.0
            cand.final = (1 - weight) * cand.final + weight * model
        candidates.sort(key=lambda c: (-c.final, c.rowid))

    def _rerank(self, question: str, candidates: list[Candidate], seed: bool) -> None:
        """Score the top ``rerank_depth`` candidates lexically (the rest keep lexical 0)."""
        best = max((c.fused for c in candidates), default=0.0) or 1.0
        depth = self._options.rerank_depth if self._options.reranker != "none" else 0
        for position, cand in enumerate(candidates):
            if position < depth:
                cand.lexical = lexical_score(question, cand.chunk.text, cand.chunk.heading_path)
            cand.gate = final_score(cand.score_vector * cand.folder_weight, cand.lexical)
            relative = cand.fused if seed else cand.fused / best
            if self._options.reranker == "none":
                cand.final = relative
            else:
                cand.final = final_score(relative, cand.lexical)
