"""Streaming loops software-pipelined (``LOOP_STAGES``, akg_rag.lower.triton_loops.staged): the
chunk loop of a split or loop-form reduction is written ``tl.range(..., num_stages=LOOP_STAGES)``
and gives torch's result at every depth; loops that multiply tiles, unrolled tap loops and loops
that hold other loops are written as before; a depth outside 1-5 is refused by the host."""

from __future__ import annotations

import pytest
import torch

from tests.lower.test_span import POOL1D, _pool
from tests.lower.test_triton import GEMM_F32


def _norm_region(n: tuple[int, ...]):
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    E, I, C = Expr, Expr.input, Expr.call
    mean = C("div", E("reduced", ref="s"), E("numel"))
    cen = C("sub", I("x"), mean)
    y = C("mul", cen, C("rsqrt", C("add", C("div", E("reduced", ref="v"), E("numel")), Expr.const(1e-5))))
    return ReductionRegion([Value("x", n, "float32")], n, (1, 2),
                           [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                           [Output(Value("y", n, "float32"), y)])


@pytest.mark.parametrize("form", ["split", "loop"])
def test_a_norms_streaming_loops_give_torchs_result_at_every_depth(build, device, monkeypatch, form):
    import akg_rag.lower.emit.reduction as reduction
    from akg_rag.lower.emit import emit_sketch

    if form == "split":
        monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 64)
        monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 16)
    else:
        monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    fn, module, src = build(emit_sketch(_norm_region((3, 5, 70)), "k0"), "k0")
    # every chunk loop (statistics and output passes) reads the switch; default: as written
    loops = src.code.count("num_stages=LOOP_STAGES)")
    assert loops == 2 and src.code.count("tl.range(") == loops
    assert src.tunables["K0_LOOP_STAGES"] == 1
    x = torch.randn(3, 5, 70, device=device) * 2 + 3
    mu = x.mean((1, 2), keepdim=True)
    ref = (x - mu) * torch.rsqrt(((x - mu) ** 2).mean((1, 2), keepdim=True) + 1e-5)
    module.K0_RBLOCK = 16
    for stages in (1, 2, 3, 4):
        module.K0_LOOP_STAGES = stages
        out = torch.full_like(x, float("nan"))
        fn(x, out)
        torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)


def test_a_depth_outside_one_to_five_is_refused(build, device, monkeypatch):
    import akg_rag.lower.emit.reduction as reduction
    from akg_rag.lower.emit import emit_sketch

    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    fn, module, _ = build(emit_sketch(_norm_region((2, 3, 40)), "k0"), "k0")
    x = torch.randn(2, 3, 40, device=device)
    for bad in (0, 6, 2.5):
        module.K0_LOOP_STAGES = bad
        with pytest.raises(ValueError, match="K0_LOOP_STAGES must be 1"):
            fn(x, torch.empty_like(x))


def test_dot_loops_and_unrolled_tap_loops_are_written_as_before(build):
    """A GEMM's K loop is pipelined by the kernel's own num_stages (it feeds tl.dot); a window's
    unrolled taps are a static range; neither reads LOOP_STAGES, nor does the host offer it."""
    for text in (GEMM_F32, _pool(8, 4, 3)):
        _, _, src = build(text, "k0")
        assert "LOOP_STAGES" not in src.code and "K0_LOOP_STAGES" not in src.tunables
    assert "unroll" in POOL1D


def test_the_tuner_offers_the_depths():
    from akg_rag.lower.tune_space import _values

    values, why = _values("LOOP_STAGES", 1, None, {}, "triton", {})
    assert tuple(values) == (1, 2, 3, 4) and "pipelined" in why
