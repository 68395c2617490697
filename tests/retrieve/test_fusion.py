"""Fusion and normalisation on hand-made score lists."""

from __future__ import annotations

import pytest

from notecite.retrieve.fusion import FusionWeights, fuse, min_max, ranks


def test_min_max_scales_to_unit_range() -> None:
    assert min_max({1: 2.0, 2: 4.0, 3: 3.0}) == {1: 0.0, 2: 1.0, 3: 0.5}


def test_min_max_of_equal_scores_is_one() -> None:
    assert min_max({1: -7.0, 2: -7.0}) == {1: 1.0, 2: 1.0}


def test_ranks_descending_with_shared_ranks_for_ties() -> None:
    assert ranks({5: 0.2, 3: 0.9, 4: 0.2, 6: 0.1}) == {3: 1, 4: 2, 5: 2, 6: 4}


def test_weighted_never_adds_raw_bm25() -> None:
    # BM25 of 40 would swamp a cosine of 0.9 if raw scores were added.
    vector = {1: 0.9, 2: 0.1}
    bm25 = {1: 1.0, 2: 40.0}
    fused = fuse("weighted", vector, bm25, {}, FusionWeights(0.6, 0.25, 0.15))
    # normalised: row 1 = (0.6*1 + 0.25*0 + 0.15*0.5) / 1, row 2 = (0.6*0 + 0.25*1 + 0.075)
    assert fused[1] == pytest.approx(0.675)
    assert fused[2] == pytest.approx(0.325)


def test_weighted_uses_recency_with_neutral_default() -> None:
    fused = fuse("weighted", {1: 0.5, 2: 0.5}, {}, {1: 1.0}, FusionWeights(0.6, 0.25, 0.15))
    assert fused[1] > fused[2]
    assert fused[2] == pytest.approx((0.6 * 1 + 0.25 * 1 + 0.15 * 0.5) / 1.0)


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = fuse("rrf", {1: 0.9, 2: 0.8}, {2: 5.0, 3: 1.0}, {}, FusionWeights(recency=0.0))
    assert fused[1] == pytest.approx(1 / 61)
    assert fused[2] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[3] == pytest.approx(1 / 62)
    assert max(fused, key=fused.__getitem__) == 2


def test_rrf_recency_breaks_ties_only() -> None:
    weights = FusionWeights(recency=0.15)
    # 1 leads both lists, 2 is newer: recency must not overturn a double first place.
    fused = fuse("rrf", {1: 0.9, 2: 0.8}, {1: 5.0, 2: 4.0}, {1: 0.1, 2: 1.0}, weights)
    assert fused[1] > fused[2]
    # Equal on both lists: the newer note wins.
    tied = fuse("rrf", {1: 0.5, 2: 0.5}, {1: 3.0, 2: 3.0}, {1: 0.1, 2: 1.0}, weights)
    assert tied[2] > tied[1]


def test_vector_lexical_ranks_by_cosine_only() -> None:
    fused = fuse("vector_lexical", {1: 0.3, 2: 0.7}, {1: 99.0, 3: 5.0}, {}, FusionWeights())
    assert fused == {1: 0.3, 2: 0.7}


def test_unknown_strategy_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown fusion strategy"):
        fuse("magic", {1: 1.0}, {}, {}, FusionWeights())
