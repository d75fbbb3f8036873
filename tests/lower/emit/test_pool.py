"""Pooling emitter: max and average, 1-D/2-D/3-D, stride, padding, dilation, ceil_mode,
count_include_pad and divisor_override, with an epilogue."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from akg_rag.lower.region import Expr, Output, PoolRegion, Value

E, I, C, K = Expr, Expr.input, Expr.call, Expr.const

CASES = [  # op, nd, size, kernel, stride, pad, dilation, ceil, count_include_pad, divisor
    ("max", 2, 7, 3, 2, 1, 1, False, True, None),
    ("max", 1, 9, 3, 2, 1, 2, True, True, None),
    ("max", 3, 5, 2, 2, 1, 1, True, True, None),
    ("avg", 2, 7, 3, 2, 1, 1, False, True, None),
    ("avg", 2, 7, 3, 2, 1, 1, True, False, None),
    ("avg", 1, 9, 4, 3, 2, 1, True, True, None),
    ("avg", 2, 6, 3, 2, 1, 1, False, True, 5),
    ("avg", 3, 5, 3, 2, 1, 1, False, False, None),
    # windows at least twice their stride along the first pooled dim: the rolled form's cases
    ("max", 2, 9, 4, 1, 1, 1, False, True, None),
    ("max", 2, 11, 3, 1, 1, 2, False, True, None),
    ("max", 3, 9, 4, 2, 1, 2, False, True, None),
    ("max", 3, 7, 2, 1, 1, 1, True, True, None),
    ("avg", 2, 8, 3, 1, 1, 1, True, False, None),
    ("avg", 3, 8, 4, 2, 2, 1, False, True, None),
    ("avg", 2, 7, 4, 2, 2, 1, False, True, 7),
]


@pytest.fixture(params=["tiled", "rolled"])
def form(request, monkeypatch):
    """The pooling emitter with its rolled form on or off."""
    from akg_rag.lower.emit import pool

    monkeypatch.setattr(pool, "ROLL", request.param == "rolled")
    return request.param


@pytest.mark.parametrize("case", CASES,
                         ids=lambda c: f"{c[0]}{c[1]}d-k{c[3]}s{c[4]}d{c[6]}-ceil{int(c[7])}-cip{int(c[8])}-div{c[9]}")
def test_pool_matches_torch(run, form, case):
    op, nd, size, k, s, p, d, ceil, cip, div = case
    x = torch.randn(2, 3, *([size] * nd))
    if op == "max":
        ref = getattr(F, f"max_pool{nd}d")(x, k, s, p, d, ceil_mode=ceil)
    else:
        kw = {"divisor_override": div} if nd > 1 else {}
        ref = getattr(F, f"avg_pool{nd}d")(x, k, s, p, ceil_mode=ceil, count_include_pad=cip, **kw)
    scale = torch.randn(3, *([1] * nd))
    reg = PoolRegion(Value("x", tuple(x.shape), "float32"), op, (k,) * nd, (s,) * nd, (p,) * nd, (d,) * nd,
                     ceil, cip, div, [Value("scale", tuple(scale.shape), "float32")],
                     [Output(Value("y", tuple(ref.shape), "float32"), C("mul", E("acc"), I("scale")))], tuple(ref.shape))
    # several tiles and runs of the rolled dim, ragged edges
    got = run(reg, {"x": x, "scale": scale}, {"BH": 2, "BW": 2, "RD": 3})["y"]
    torch.testing.assert_close(got, ref * scale)


def test_the_rolled_form_taps_each_input_once_per_program(form):
    """4x4 windows at stride 1: the tiled form loads 16 taps an output; the rolled one combines
    the 4 taps of a row once and keeps 4 combined rows in registers (one load statement per
    tap of the last dim, none per tap of the first), in one pass (no row read twice)."""
    from akg_rag.lower.emit import emit_sketch

    reg = PoolRegion(Value("x", (2, 3, 64, 64), "float32"), "max", (4, 4), (1, 1), (1, 1), (1, 1),
                     False, True, None, [], [Output(Value("y", (2, 3, 63, 63), "float32"), E("acc"))], (2, 3, 63, 63))
    text = emit_sketch(reg, "k0")
    loops = "\n".join(line for line in text.splitlines() if "@llm_hint" not in line)
    nested = "for k0 in range(4):\n      for k1 in range(4):"
    if form == "rolled":
        assert "RD = 8" in text and nested not in loops and text.count("load(") == 1
    else:
        assert "RD" not in text and nested in loops and text.count("load(") == 1
    # windows read by fewer than two outputs a position along the first dim stay tiled
    reg.kernel, reg.stride, reg.padding = (3, 3), (2, 2), (0, 0)
    reg.outputs = [Output(Value("y", (2, 3, 31, 31), "float32"), E("acc"))]
    reg.shape = (2, 3, 31, 31)
    assert "RD" not in emit_sketch(reg, "k0")


@pytest.mark.parametrize("kernel,unrolled", [((8,), True), ((3, 3, 3), True), ((4, 4, 4), False), ((7, 7), False)])
def test_small_windows_unroll_their_tap_loops(monkeypatch, kernel, unrolled):
    """Tap loops of windows of at most UNROLL_TAPS taps carry the unroll hint, so the Triton
    kernel walks them with tl.static_range (each tap's offset a constant the compiler sees);
    larger windows stay rolled up (the tiled form; the rolled one counts the taps it loops)."""
    from akg_rag.lower.emit import emit_sketch, pool
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    monkeypatch.setattr(pool, "ROLL", False)

    nd = len(kernel)
    size = 16
    x = Value("x", (2, 3, *([size] * nd)), "float32")
    out = (2, 3, *([size - k + 1 for k in kernel]))
    reg = PoolRegion(x, "max", kernel, (1,) * nd, (0,) * nd, (1,) * nd, False, True, None, [],
                     [Output(Value("y", out, "float32"), E("acc"))], out)
    text = emit_sketch(reg, "k0")
    taps = 1
    for k in kernel:
        taps *= k
    assert (taps <= pool.UNROLL_TAPS) == unrolled
    assert ('@llm_hint("unroll", "core")' in text) == unrolled
    code = emit_triton(check_sketch(text), "k0").code
    assert ("tl.static_range" in code) == unrolled


def _pool_params(op, x_shape, out_shape, k, s, nd):
    from akg_rag.lower.emit import emit_sketch

    reg = PoolRegion(Value("x", x_shape, "float32"), op, (k,) * nd, (s,) * nd, (0,) * nd, (1,) * nd,
                     False, True, None, [], [Output(Value("y", out_shape, "float32"), E("acc"))], out_shape)
    text = emit_sketch(reg, "k0")
    head = text.split("params:")[1].splitlines()[0]
    return dict(p.strip().split(" = ") for p in head.split(","))


def test_pool_tiles_follow_the_stride_and_a_single_row_gets_a_long_tile(monkeypatch):
    """512 outputs a program over the stride rounded up to a power of two, at least 128: stride 1
    [8, 64]; stride 2 256, in rows that span 256 inputs ([2, 128], or [4, 64] when the output row
    is 64 wide); stride 3 and 11 128 ([2, 64]). A 2-D pooling over one row (H = 1, a 1-D pooling
    viewed 2-D) puts the whole tile along that row; 1-D: BW only."""
    from akg_rag.lower.emit import pool

    monkeypatch.setattr(pool, "ROLL", False)
    assert _pool_params("max", (2, 3, 512, 512), (2, 3, 509, 509), 4, 1, 2) == {"BH": "8", "BW": "64"}
    assert _pool_params("avg", (2, 3, 128, 256), (2, 3, 64, 128), 2, 2, 2) == {"BH": "2", "BW": "128"}
    assert _pool_params("max", (2, 3, 128, 128), (2, 3, 64, 64), 2, 2, 2) == {"BH": "4", "BW": "64"}
    assert _pool_params("avg", (2, 3, 512, 512), (2, 3, 170, 170), 3, 3, 2) == {"BH": "2", "BW": "64"}
    assert _pool_params("avg", (2, 3, 2048, 2048), (2, 3, 186, 186), 11, 11, 2) == {"BH": "2", "BW": "64"}
    assert _pool_params("max", (2, 3, 1, 4096), (2, 3, 1, 4096), 1, 1, 2) == {"BH": "1", "BW": "512"}
    assert _pool_params("max", (2, 3, 1, 4096), (2, 3, 1, 2048), 2, 2, 2) == {"BH": "1", "BW": "256"}
    assert _pool_params("avg", (2, 3, 1, 8192), (2, 3, 1, 512), 16, 16, 2) == {"BH": "1", "BW": "128"}
    assert _pool_params("avg", (2, 3, 4096), (2, 3, 2048), 2, 2, 1) == {"BW": "256"}
    assert _pool_params("avg", (2, 3, 4096), (2, 3, 1365), 3, 3, 1) == {"BW": "128"}
