"""Stage 3: properties of the shape-compatibility score and of the combined final score."""

from __future__ import annotations

import math

import pytest

from akg_rag.retrieval.shapes import (
    SHAPE_WEIGHT,
    UNKNOWN_SHAPE_SCORE,
    combine,
    dim_score,
    parse_shapes,
    semantic_floor,
    shape_score,
    tensor_score,
)


@pytest.mark.parametrize(
    "shapes",
    [[[4096, 4096]], [[7]], [[2, 3, 5], [5]], [[-1, 128]], [[]], [[1, 1, 1, 1]]],
)
def test_identical_shapes_score_one(shapes):
    assert shape_score(shapes, shapes) == pytest.approx(1.0)


def test_scores_stay_in_unit_interval():
    cases = [([[1]], [[10**9]]), ([[3, 5, 7]], [[-1]]), ([[0, 4]], [[4, 0]]), ([[8, 8]], [])]
    for q, r in cases:
        assert 0.0 <= shape_score(q, r) <= 1.0


def test_rank_mismatch_scores_low():
    same_rank = shape_score([[512, 512]], [[64, 8192]])  # same rank, 8x and 16x apart
    assert shape_score([[512, 512]], [[512, 512, 512]]) <= 0.25
    assert shape_score([[512, 512]], [[512]]) <= 0.25
    assert shape_score([[512, 512]], [[512, 512, 512]]) < same_rank


def test_monotone_in_log_size_ratio():
    # Same alignment class everywhere (all multiples of 128): only the ratio changes.
    previous = 1.0
    for ratio_log2 in range(0, 12):
        s = dim_score(128, 128 * 2**ratio_log2)
        assert s < previous or ratio_log2 == 0
        previous = s
    # Symmetric, and a ratio counts the same whichever side is larger.
    assert dim_score(256, 4096) == pytest.approx(dim_score(4096, 256))
    assert dim_score(256, 4096) == pytest.approx(dim_score(1024, 16384))


def test_alignment_matters_at_equal_ratio():
    # 1024 vs 1000: nearly the same size, but one is tile-aligned and the other is not.
    assert dim_score(1024, 1024) > dim_score(1024, 1000)
    assert dim_score(1000, 1000) == pytest.approx(1.0)
    assert dim_score(2048, 1024) > dim_score(2048, 1000)  # 2x apart either way; alignment decides


def test_dynamic_dims():
    assert dim_score(-1, -1) == 1.0
    assert dim_score(-1, 4096) == dim_score(4096, -1) == 0.5
    assert shape_score([[-1, 1024]], [[-1, 1024]]) == pytest.approx(1.0)
    assert shape_score([[-1, 1024]], [[4096, 1024]]) < 1.0
    assert shape_score([[-1, 1024]], [[4096, 1024]]) > shape_score([[-1, 1024]], [[4096, 1024, 1]])


def test_missing_and_extra_tensors_count_as_zero():
    one = [[1024, 1024]]
    two = [[1024, 1024], [1024, 1024]]
    assert shape_score(one, two) == pytest.approx(0.5)
    assert shape_score(two, one) == pytest.approx(0.5)


def test_unknown_shapes():
    assert shape_score(None, [[4, 4]]) is None
    assert shape_score([[4, 4]], None) == UNKNOWN_SHAPE_SCORE
    assert parse_shapes(None) is None and parse_shapes("") is None and parse_shapes("{bad") is None
    assert parse_shapes("[[4096, -1], [7]]") == [[4096, -1], [7]]


def test_combine_lets_semantic_dominate():
    # A perfect shape cannot lift a hit over one more than w/(1-w) ahead in semantic score.
    gap = SHAPE_WEIGHT / (1 - SHAPE_WEIGHT)
    assert combine(0.8, 0.0) > combine(0.8 - gap - 1e-6, 1.0)
    # Between equally similar computations the better shape wins.
    assert combine(0.8, 0.9) > combine(0.8, 0.2)
    assert combine(0.7, None) == 0.7
    # semantic_floor inverts combine at a perfect shape score.
    assert combine(semantic_floor(0.6), 1.0) == pytest.approx(0.6)
    assert math.isclose(tensor_score([], []), 1.0)
