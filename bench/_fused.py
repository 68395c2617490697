"""The store-level half of the one ranker, for the latency benches: vector + BM25 candidates
fused by the ``weighted`` strategy of ``notecite.retrieve.fusion`` (no chunk fetch, no rerank;
``Engine.search`` is timed separately for the whole path)."""

from __future__ import annotations

from notecite.embed.base import Vectors
from notecite.retrieve.fusion import FusionWeights, fuse
from notecite.store.base import Store
from notecite.types import SearchFilter


def fused_search(
    store: Store,
    model_id: str,
    vector: Vectors,
    text: str,
    flt: SearchFilter,
    limit: int,
    candidates: int,
) -> list[int]:
    """The top ``limit`` chunk rowids by fused vector + BM25 score."""
    dense = {
        h.chunk_rowid: h.ranking_score
        for h in store.vector_search(model_id, vector, flt, candidates)
    }
    bm25 = {h.chunk_rowid: h.score for h in store.lexical_search(text, flt, candidates)}
    fused = fuse("weighted", dense, bm25, {}, FusionWeights())
    return sorted(fused, key=lambda rowid: (-fused[rowid], rowid))[:limit]
