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
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}d-ceil{int(c[7])}-cip{int(c[8])}-div{c[9]}")
def test_pool_matches_torch(run, case):
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
    got = run(reg, {"x": x, "scale": scale}, {"BH": 2, "BW": 2})["y"]  # several tiles, ragged edges
    torch.testing.assert_close(got, ref * scale)


def _pool_params(op, x_shape, out_shape, k, s, nd):
    from akg_rag.lower.emit import emit_sketch

    reg = PoolRegion(Value("x", x_shape, "float32"), op, (k,) * nd, (s,) * nd, (0,) * nd, (1,) * nd,
                     False, True, None, [], [Output(Value("y", out_shape, "float32"), E("acc"))], out_shape)
    text = emit_sketch(reg, "k0")
    head = text.split("params:")[1].splitlines()[0]
    return dict(p.strip().split(" = ") for p in head.split(","))


def test_pool_tiles_follow_the_stride_and_a_single_row_gets_a_long_tile():
    """512 outputs a program over the stride rounded up to a power of two, at least 128: stride 1
    [8, 64]; stride 2 256, in rows that span 256 inputs ([2, 128], or [4, 64] when the output row
    is 64 wide); stride 3 and 11 128 ([2, 64]). A 2-D pooling over one row (H = 1, a 1-D pooling
    viewed 2-D) puts the whole tile along that row; 1-D: BW only."""
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
