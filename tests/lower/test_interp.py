"""The reference interpreter: the kernel semantics of docs/lowering.md, literally."""

from __future__ import annotations

import pytest
import torch

from akg_rag.errors import SketchError
from akg_rag.lower.interp import run_sketch

GATHER = """
sketch g {
  symbols: N, M
  tensors: x[N]: f32 in; idx[M]: i64 in; y[M]: f32 out
  params: BLOCK = 4
  @llm_hint("parallel", "grid")
  for b in range((M + BLOCK - 1) // BLOCK):
    i = b * BLOCK + iota(BLOCK)
    load(idx[i] -> j, other=-1)
    load(x[j] -> v, other=-inf)
    store(v -> y[i])
}
"""


def test_gather_with_out_of_bounds_reads_other_and_skipped_stores():
    x = torch.arange(5.0)
    idx = torch.tensor([4, 0, 7, -1, 2, 1])
    y = torch.full((6,), 9.0)
    run_sketch(GATHER, {"x": x, "idx": idx, "y": y})
    assert y.tolist() == [4.0, 0.0, float("-inf"), float("-inf"), 2.0, 1.0]


def test_params_override_and_symbol_binding_errors():
    x, idx, y = torch.arange(5.0), torch.tensor([1, 2, 3]), torch.zeros(3)
    run_sketch(GATHER, {"x": x, "idx": idx, "y": y}, {"BLOCK": 2})
    assert y.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="symbol M"):
        run_sketch(GATHER, {"x": x, "idx": idx, "y": torch.zeros(4)})
    with pytest.raises(ValueError, match="not declared"):
        run_sketch(GATHER, {"x": x, "idx": idx, "y": y}, {"NOPE": 1})
    with pytest.raises(ValueError, match="needs tensor"):
        run_sketch(GATHER, {"x": x, "y": y})


def test_two_d_index_tiles_slices_and_strided_views_in_place():
    text = """
sketch t {
  symbols: R, C
  tensors: x[R, C]: f32 in; y[C, R]: f32 out
  @llm_hint("parallel", "grid")
  for r in range(R):
    load(x[r, 0:C] -> row)
    cols = unsqueeze(iota(C), axis=0)
    two = add(unsqueeze(row, axis=1), cast(cols, f32))
    s = reduce_sum(two, axis=1)
    store(s -> y[0:C, r])
}
"""
    x = torch.randn(3, 4)
    base = torch.zeros(3, 4)
    y = base.t()  # a strided output view: written in place
    run_sketch(text, {"x": x, "y": y})
    want = 4 * x + 6.0   # [C, 1] + [1, C] summed over axis 1: C * x + (0 + 1 + 2 + 3)
    torch.testing.assert_close(base, want)


RACE = """
sketch r {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(N):
    load(x[i] -> v)
    store(v -> y[0])
}
"""


def test_a_write_by_two_grid_points_of_one_launch_is_a_race():
    with pytest.raises(SketchError, match="race"):
        run_sketch(RACE, {"x": torch.ones(3), "y": torch.zeros(3)})


def test_launches_run_in_order_through_a_temp_and_loop_carried_accumulators():
    text = """
sketch two {
  symbols: N
  tensors: x[N]: f32 in; t[N]: f32 temp; y[1]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(N):
    load(x[i] -> v)
    sq = mul(v, v)
    store(sq -> t[i])
  @llm_hint("parallel", "grid")
  for p in range(1):
    acc = alloc([1], f32, hint="accumulator", init=0)
    for k in range(0, N, 2):
      load(t[k:k + 2] -> blk)
      acc = add(acc, reduce_sum(blk, axis=0))
    store(acc -> y[0:1])
}
"""
    x = torch.randn(5)
    y = torch.zeros(())   # a 0-d tensor stands for a [1] declaration
    run_sketch(text, {"x": x, "y": y})
    torch.testing.assert_close(y, (x * x).sum())


def test_top_level_statements_must_be_launches():
    text = """
sketch bad {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  for i in range(N):
    load(x[i] -> v)
    store(v -> y[i])
}
"""
    with pytest.raises(SketchError, match="parallel loop"):
        run_sketch(text, {"x": torch.ones(2), "y": torch.zeros(2)})


def test_half_data_computes_in_f32_and_stores_rounded():
    text = """
sketch h {
  symbols: N
  tensors: x[N]: f16 in; y[N]: f16 out; z[N]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(N):
    load(x[i] -> v)
    w = add(v, 0.0001)
    store(w -> y[i])
    store(w -> z[i])
}
"""
    x = torch.ones(2, dtype=torch.float16)
    y, z = torch.zeros(2, dtype=torch.float16), torch.zeros(2)
    run_sketch(text, {"x": x, "y": y, "z": z})
    assert y.tolist() == [1.0, 1.0] and abs(z[0].item() - 1.0001) < 1e-6
