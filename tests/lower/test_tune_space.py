"""The tuner's search space: values read from what each tunable does in the sketch."""

from __future__ import annotations

from akg_rag.lower.tune_space import kernel_knobs, tile_elements, violation
from akg_rag.sketch import check_sketch

ROWS = """
sketch k0 {
  symbols: D0, D1
  tensors: x[D0, D1]: f32 in; y[D0, 1]: f32 out
  params: KBLOCK = 4

  @llm_hint("parallel", "grid")
  for pid in range(((D0 + KBLOCK - 1) // KBLOCK)):
    kk = unsqueeze(pid * KBLOCK + iota(KBLOCK), axis=1)
    r = unsqueeze(iota(D1), axis=0)
    load(x[kk, r] -> v)
    s = reduce_sum(where(lt(r, D1), v, 0), axis=1, keepdim=1)
    store(s -> y[kk, 0])
}
"""

SPLIT = """
sketch k0 {
  symbols: D0
  tensors: x[D0]: f32 in; y[1]: f32 out; part[SPLIT]: f32 temp
  params: SPLIT = 8, RBLOCK = 1024

  @llm_hint("parallel", "grid")
  for pid in range(SPLIT):
    acc = alloc([1, RBLOCK], f32, hint="accumulator", init=0)
    @llm_hint("pipeline", "core")
    for r0 in range(0, ((D0 + SPLIT * RBLOCK - 1) // (SPLIT * RBLOCK) * RBLOCK), RBLOCK):
      r = unsqueeze(pid * ((D0 + SPLIT * RBLOCK - 1) // (SPLIT * RBLOCK) * RBLOCK) + r0 + iota(RBLOCK), axis=0)
      load(x[r] -> v)
      acc = add(acc, where(lt(r, D0), v, 0))
    p = reduce_sum(acc, axis=1, keepdim=1)
    store(p -> part[pid])

  @llm_hint("parallel", "grid")
  for q in range(1):
    tot = alloc([1, 1], f32, hint="accumulator", init=0)
    for s in range(SPLIT):
      load(part[s] -> pv)
      tot = add(tot, pv)
    store(tot -> y[0])
}
"""


def _knobs(text, tunables, sizes, dsl="triton"):
    return {k.param: k for k in kernel_knobs("k0", check_sketch(text), tunables, sizes, dsl)}


def test_a_row_tile_stops_at_the_rows_there_are_and_stages_need_a_loop():
    knobs = _knobs(ROWS, {"K0_KBLOCK": 4, "K0_NUM_WARPS": 4, "K0_NUM_STAGES": 3}, {"D0": 6, "D1": 300})
    assert knobs["KBLOCK"].values == (1, 2, 4, 8) and knobs["KBLOCK"].name == "K0_KBLOCK"
    assert knobs["NUM_WARPS"].values == (1, 2, 4, 8, 16)
    assert knobs["NUM_STAGES"].values == (3,)            # no sequential loop: nothing to pipeline
    cpp = _knobs(ROWS, {"K0_KBLOCK": 4}, {"D0": 1000, "D1": 300}, "cpp")
    assert cpp["KBLOCK"].values[0] == 1 and cpp["KBLOCK"].values[-1] == 1024 and set(cpp) == {"KBLOCK"}


def test_split_counts_keep_whole_blocks_and_empty_chunks_are_illegal():
    sizes = {"D0": 1 << 16}
    knobs = _knobs(SPLIT, {"K0_SPLIT": 8, "K0_RBLOCK": 1024, "K0_NUM_STAGES": 3}, sizes)
    assert knobs["SPLIT"].values == tuple(1 << k for k in range(12))     # 1 .. 2048 (the cap)
    assert knobs["RBLOCK"].values[0] == 16 and knobs["NUM_STAGES"].values == (1, 2, 3, 4, 5)
    hinted = _knobs(SPLIT, {"K0_SPLIT": 8, "K0_CACHE_MODE": 2}, sizes)
    assert hinted["CACHE_MODE"].values == (1, 2) and hinted["CACHE_MODE"].value == 2
    versioned = _knobs(SPLIT, {"K0_SPLIT": 8, "K0_INTERIOR_MODE": 2}, sizes)
    assert versioned["INTERIOR_MODE"].values == (1, 2) and "interior" in versioned["INTERIOR_MODE"].why
    sketch, all_knobs = check_sketch(SPLIT), list(knobs.values())
    ok = violation(all_knobs, {"K0_SPLIT": 64, "K0_RBLOCK": 1024}, {"k0": sketch}, {"k0": sizes}, "triton")
    bad = violation(all_knobs, {"K0_SPLIT": 128, "K0_RBLOCK": 1024}, {"k0": sketch}, {"k0": sizes}, "triton")
    assert ok is None and "empty" in bad


def test_tiles_past_the_backend_limit_are_illegal():
    sketch = check_sketch(ROWS)
    assert tile_elements(sketch, {"D0": 6, "D1": 300, "KBLOCK": 4}, pad=True) == 4 * 512
    assert tile_elements(sketch, {"D0": 6, "D1": 300, "KBLOCK": 4}, pad=False) == 4 * 300
    knobs = list(_knobs(ROWS, {"K0_KBLOCK": 4}, {"D0": 4096, "D1": 8192}).values())
    assert violation(knobs, {"K0_KBLOCK": 8}, {"k0": sketch}, {"k0": {"D0": 4096, "D1": 8192}}, "triton") is None
    assert "exceeds" in violation(knobs, {"K0_KBLOCK": 16}, {"k0": sketch}, {"k0": {"D0": 4096, "D1": 8192}}, "triton")


MATMUL = """
class Model(nn.Module):
    def forward(self, a, b):
        return a @ b

def get_inputs():
    return [torch.randn(64, 32), torch.randn(32, {n})]

def get_init_inputs():
    return []
"""


def test_gemm_tiles_start_at_16_and_row_grouping_needs_two_column_tiles(write_task):
    from akg_rag.lower.assemble import lower_task

    def knobs(n):
        _, report = lower_task(write_task(MATMUL.format(n=n), f"mm{n}"), "triton", "cuda")
        (k,) = report.kernels
        return {x.param: x for x in kernel_knobs(k.name, check_sketch(k.sketch), k.tunables, k.sizes, "triton")}

    wide, narrow = knobs(64), knobs(8)  # (a one-column product is a reduction, not a GEMM)
    assert wide["BM"].values == (16, 32, 64) and wide["BK"].values == (16, 32)
    assert wide["GROUP_M"].values == (1, 2, 4, 8)               # 4 row tiles of 16, and the default 8
    assert narrow["GROUP_M"].values == (narrow["GROUP_M"].value,) and narrow["BN"].values == (16,)
    # an f32 dot: IEEE, three TF32 products, by layout (the default), K-major copies first
    assert wide["DOT_MODE"].value == 3 and wide["DOT_MODE"].values == (1, 2, 3, 4)


def test_programs_sharing_a_row_are_searched_by_chunk_length():
    """The cooperative form's COOP (programs a row, chunks of whole 16-element runs): powers of
    two whose chunk holds 1024-16384 elements, at most 128, and the emitted value."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    shape = (4096, 393216)
    x = Value("x", shape, "float32")
    region = ReductionRegion([x], shape, (1,), [Reduction("s", "sum", Expr.call("abs", Expr.input("x")))],
                             [Output(Value("y", shape, "float32"), Expr.call("div", Expr.input("x"), Expr("reduced", ref="s")))])
    text = emit_sketch(region, "k0", barriers=True)
    assert "COOP = 48" in text
    sizes = {"D0": shape[0], "D1": shape[1]}
    knobs = _knobs(text, {"K0_COOP": 48, "K0_NUM_WARPS": 8}, sizes)
    assert knobs["COOP"].values == (32, 48, 64, 128), knobs["COOP"]
    short = _knobs(text, {"K0_COOP": 16, "K0_NUM_WARPS": 8}, {"D0": 32768, "D1": 65535})
    assert short["COOP"].values == (4, 8, 16, 32, 64)
