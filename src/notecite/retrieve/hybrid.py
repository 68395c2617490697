"""Vector + BM25 hybrid search over a store, each score normalised per query.

BM25 from FTS5 is unbounded, so it is divided by the best BM25 score among the candidates
before it is mixed with cosine similarity; raw scores are never added.
"""

from __future__ import annotations

from dataclasses import dataclass

from notecite.embed.base import Vectors
from notecite.store.base import Store, cosine_and_dense
from notecite.types import SearchFilter


@dataclass(frozen=True)
class ScoredCandidate:
    """A chunk rowid with its vector, raw BM25, normalised BM25 and combined score."""

    rowid: int
    score_vector: float
    score_bm25: float
    score_bm25_norm: float
    score: float


@dataclass(frozen=True)
class HybridWeights:
    """How much each signal counts in the combined score."""

    vector: float = 0.7
    bm25: float = 0.3
    sentence: float = 0.0  # the vector signal mixes in the best sentence cosine by this


def hybrid_search(
    store: Store,
    model_id: str,
    query_vector: Vectors | None,
    query_text: str,
    flt: SearchFilter,
    limit: int,
    candidates: int,
    weights: HybridWeights,
) -> list[ScoredCandidate]:
    """Top ``limit`` chunks by weighted vector + normalised BM25 score.

    The vector signal is the dense score (chunk cosine mixed with the best sentence cosine
    by ``weights.sentence``); ``score_vector`` reports the chunk cosine. With
    ``query_vector`` None (the embedder failed), ranking is by BM25 alone.
    """
    vector_hits = (
        store.vector_search(model_id, query_vector, flt, candidates, weights.sentence)
        if query_vector is not None
        else []
    )
    lexical_hits = store.lexical_search(query_text, flt, candidates)
    cosine = {h.chunk_rowid: h.score for h in vector_hits}
    vector = {h.chunk_rowid: h.ranking_score for h in vector_hits}
    bm25 = {h.chunk_rowid: h.score for h in lexical_hits}
    if query_vector is not None:
        missing = [r for r in bm25 if r not in vector]
        found_cosine, found_dense = cosine_and_dense(
            store, model_id, query_vector, missing, weights.sentence
        )
        cosine.update(found_cosine)
        vector.update(found_dense)
    best_bm25 = max(bm25.values(), default=0.0)
    w_vec = weights.vector if query_vector is not None else 0.0
    total = (w_vec + weights.bm25) or 1.0
    scored = []
    for rowid in dict.fromkeys([*vector, *bm25]):
        v = max(0.0, vector.get(rowid, 0.0))
        raw = bm25.get(rowid, 0.0)
        norm = raw / best_bm25 if best_bm25 > 0 else 0.0
        combined = (w_vec * v + weights.bm25 * norm) / total
        scored.append(ScoredCandidate(rowid, cosine.get(rowid, 0.0), raw, norm, combined))
    scored.sort(key=lambda c: (-c.score, c.rowid))
    return scored[:limit]
