"""Score fusion of vector, BM25 and recency signals, each normalised per query.

FTS5's BM25 is unbounded, so raw scores are never added: ``weighted`` min-max normalises
each signal over the query's candidates before mixing, ``rrf`` uses ranks only, and
``vector_lexical`` (the seed path) ranks by cosine alone and leaves the rest to the rerank.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Strategy = Literal["weighted", "rrf", "vector_lexical", "vector", "bm25"]
STRATEGIES: tuple[str, ...] = ("weighted", "rrf", "vector_lexical", "vector", "bm25")


@dataclass(frozen=True)
class FusionWeights:
    """Weights of the ``weighted`` strategy, and RRF's k."""

    vector: float = 0.6
    keyword: float = 0.25
    recency: float = 0.15
    rrf_k: int = 60


def min_max(scores: Mapping[int, float]) -> dict[int, float]:
    """Scale to [0, 1] over the given candidates (all equal -> 1.0)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low < 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - low) / (high - low) for key, value in scores.items()}


def ranks(scores: Mapping[int, float]) -> dict[int, int]:
    """1-based competition rank of each key by descending score (equal scores share a rank)."""
    ordered = sorted(scores, key=lambda key: (-scores[key], key))
    result: dict[int, int] = {}
    previous: float | None = None
    rank = 0
    for position, key in enumerate(ordered, start=1):
        if previous is None or scores[key] != previous:
            rank, previous = position, scores[key]
        result[key] = rank
    return result


def fuse(
    strategy: str,
    vector: Mapping[int, float],
    bm25: Mapping[int, float],
    recency: Mapping[int, float],
    weights: FusionWeights,
) -> dict[int, float]:
    """One score per candidate (the union of ``vector`` and ``bm25`` keys)."""
    keys = list(dict.fromkeys([*vector, *bm25]))
    if strategy == "vector_lexical" or strategy == "vector":
        return {key: vector.get(key, 0.0) for key in keys if key in vector}
    if strategy == "bm25":
        return {key: bm25[key] for key in keys if key in bm25}
    if strategy == "rrf":
        # Recency is a third ranked list, weighted so that it breaks near-ties only.
        lists = [(1.0, ranks(vector)), (1.0, ranks(bm25))]
        lists.append((weights.recency, ranks({key: recency.get(key, 0.5) for key in keys})))
        return {
            key: sum(w / (weights.rrf_k + r[key]) for w, r in lists if key in r) for key in keys
        }
    if strategy == "weighted":
        v = min_max({key: vector.get(key, 0.0) for key in keys})
        b = min_max({key: bm25.get(key, 0.0) for key in keys})
        total = (weights.vector + weights.keyword + weights.recency) or 1.0
        return {
            key: (
                weights.vector * v[key]
                + weights.keyword * b[key]
                + weights.recency * recency.get(key, 0.5)
            )
            / total
            for key in keys
        }
    raise ValueError(f"unknown fusion strategy {strategy!r}; choose one of {STRATEGIES}")
