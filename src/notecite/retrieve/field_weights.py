"""Weights of candidates by their note's frontmatter: ``[retrieval.weights.<key>]``.

``type`` is one key among others: its weights are the doc-type weights (``note_type`` is on
every candidate already). For any other key, the store is asked once for the values the
candidates' notes hold. A note with several values under one key (tags) takes the largest
weight among those configured; the weights of different keys multiply; a note with none of
them weighs 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from notecite.store.base import FrontmatterFacets, Store, StoredChunk

TYPE_KEY = "type"


def split_weights(
    doc_type_weights: Mapping[str, float], weights: Mapping[str, Mapping[str, float]]
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The type weights (``doc_type_weights`` with ``weights.type`` over them) and the
    weights of every other key, all keys and values lower case."""
    lowered = {
        key.strip().lower(): {v.strip().lower(): w for v, w in values.items()}
        for key, values in weights.items()
    }
    types = {k.lower(): v for k, v in doc_type_weights.items()}
    types.update(lowered.pop(TYPE_KEY, {}))
    return types, lowered


def candidate_weights(
    store: Store,
    chunks: Mapping[int, StoredChunk],
    types: Mapping[str, float],
    others: Mapping[str, Mapping[str, float]],
) -> dict[int, float]:
    """Rowid -> the product of its note's weights (type and every configured key)."""
    weights = {r: types.get((c.note_type or "").lower(), 1.0) for r, c in chunks.items()}
    if not others or not chunks or not isinstance(store, FrontmatterFacets):
        return weights
    fields = store.chunk_fields(list(chunks), list(others))
    for rowid, held in fields.items():
        if rowid in weights:
            weights[rowid] *= _product(held, others)
    return weights


def _product(held: Mapping[str, Sequence[str]], others: Mapping[str, Mapping[str, float]]) -> float:
    total = 1.0
    for key, values in held.items():
        table = others.get(key, {})
        found = [table[v] for v in values if v in table]
        if found:
            total *= max(found)
    return total
