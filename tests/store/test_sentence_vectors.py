"""Sentence-window vectors in the in-memory matrix: best sentence per chunk, mixed scores,
and the same numbers whether a filter scores the whole matrix or a few rows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from notecite.store.sqlite import vectors
from notecite.store.sqlite.vectors import SentenceVectors, VectorMatrix
from notecite.types import SearchFilter

RNG = np.random.default_rng(7)
TOL = 2e-3  # sentence vectors are kept as float16


def _unit_rows(n: int, dims: int = 8) -> np.ndarray:
    rows = RNG.normal(size=(n, dims)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _matrix(chunks: int, sentences_per_chunk: list[int]) -> tuple[VectorMatrix, list[np.ndarray]]:
    rowids = np.arange(10, 10 + chunks, dtype=np.int64) * 3  # sorted, not 0..n
    matrix = VectorMatrix(
        rowids=rowids,
        matrix=_unit_rows(chunks),
        vault_ids=np.array([1 if i % 5 else 2 for i in range(chunks)], dtype=np.int64),
        folder_codes=np.zeros(chunks, dtype=np.int32),
        folders=[""],
        note_ts=np.full(chunks, np.nan),
    )
    owned = [_unit_rows(k) for k in sentences_per_chunk]
    rows = [(int(rowids[i]), vec.tobytes()) for i, block in enumerate(owned) for vec in block]
    rows.append((10**9, _unit_rows(1)[0].tobytes()))  # a chunk the matrix does not hold
    order = RNG.permutation(len(rows))  # rows come in any order, in blocks
    shuffled = [rows[i] for i in order]
    blocks = [shuffled[i : i + 7] for i in range(0, len(shuffled), 7)]
    matrix.sentences = SentenceVectors.from_rows(rowids, blocks)
    return matrix, owned


def _expected(
    matrix: VectorMatrix, owned: list[np.ndarray], query: np.ndarray, w: float
) -> dict[int, float]:
    out = {}
    for i, rowid in enumerate(matrix.rowids):
        cosine = float(matrix.matrix[i] @ query)
        best = float((owned[i] @ query).max()) if len(owned[i]) else cosine
        out[int(rowid)] = (1 - w) * cosine + w * best
    return out


@pytest.mark.parametrize("weight", [0.0, 0.3, 0.65, 1.0])
def test_dense_score_is_the_mix_of_cosine_and_best_sentence(weight: float) -> None:
    counts = [int(RNG.integers(0, 5)) for _ in range(40)]
    matrix, owned = _matrix(40, counts)
    query = _unit_rows(1)[0]
    expected = _expected(matrix, owned, query, weight)
    hits = matrix.search(query, SearchFilter(), 40, sentence_weight=weight)
    assert {h.chunk_rowid: h.dense if h.dense is not None else h.score for h in hits} == (
        pytest.approx(expected, abs=TOL)
    )
    # Ranked by the dense score; float16 may swap two near-ties.
    order = [expected[h.chunk_rowid] for h in hits]
    assert all(a >= b - TOL for a, b in itertools.pairwise(order))
    for hit in hits:
        i = int(np.flatnonzero(matrix.rowids == hit.chunk_rowid)[0])
        assert hit.score == pytest.approx(float(matrix.matrix[i] @ query), abs=TOL)
    some = [int(r) for r in matrix.rowids[::3]]
    assert matrix.scores_for(query, some, weight) == pytest.approx(
        {r: expected[r] for r in some}, abs=TOL
    )


def test_selective_and_broad_filters_score_alike() -> None:
    counts = [int(RNG.integers(0, 4)) for _ in range(60)]
    matrix, owned = _matrix(60, counts)
    query = _unit_rows(1)[0]
    expected = _expected(matrix, owned, query, 0.65)
    for vault in (1, 2):  # vault 2 holds 1 in 5 rows: the selective path
        hits = matrix.search(query, SearchFilter(vault_ids=(vault,)), 60, sentence_weight=0.65)
        in_vault = {
            int(r) for r, v in zip(matrix.rowids, matrix.vault_ids, strict=True) if v == vault
        }
        assert {h.chunk_rowid for h in hits} == in_vault
        assert {h.chunk_rowid: h.dense for h in hits} == pytest.approx(
            {r: expected[r] for r in in_vault}, abs=TOL
        )


def test_no_sentence_rows_means_plain_cosine() -> None:
    matrix, _ = _matrix(5, [0] * 5)
    assert matrix.sentences is None  # the one row left belongs to no chunk of the matrix
    query = _unit_rows(1)[0]
    plain = matrix.search(query, SearchFilter(), 5)
    mixed = matrix.search(query, SearchFilter(), 5, sentence_weight=0.65)
    assert [h.chunk_rowid for h in plain] == [h.chunk_rowid for h in mixed]
    assert [h.score for h in mixed] == [h.score for h in plain]
    assert all(h.dense is None for h in mixed)
    assert SentenceVectors.from_rows(matrix.rowids, []) is None


def test_search_rescores_a_pool_of_the_best_cosines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "SENTENCE_POOL", 10)
    monkeypatch.setattr(vectors, "SENTENCE_POOL_FACTOR", 2)
    matrix, owned = _matrix(60, [3] * 60)
    query = _unit_rows(1)[0]
    expected = _expected(matrix, owned, query, 0.65)
    cosine = {int(r): float(v @ query) for r, v in zip(matrix.rowids, matrix.matrix, strict=True)}
    pool = sorted(cosine, key=lambda r: -cosine[r])[:10]  # max(10, 2 x 4)
    hits = matrix.search(query, SearchFilter(), 4, sentence_weight=0.65)
    assert {h.chunk_rowid for h in hits} <= set(pool)
    assert [h.chunk_rowid for h in hits] == sorted(pool, key=lambda r: -expected[r])[:4]
