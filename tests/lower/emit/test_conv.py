"""Convolution emitter: 1-D/2-D/3-D, stride, padding, dilation, groups, depthwise, transposed,
bias and epilogue, in its four forms (tap by tap, implicit GEMM, tiled direct and direct)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from akg_rag.lower.emit import emit_sketch
from akg_rag.lower.region import ConvRegion, Expr, Output, Value

E, I, C, K = Expr, Expr.input, Expr.call, Expr.const
TILES = {"BM": 16, "BN": 16, "BK": 16, "BLOCK": 8}

CASES = [  # nd, n, c, o, size, k, stride, pad, dil, groups, transposed, output_padding
    (2, 2, 4, 16, 6, 3, 1, 1, 1, 1, False, 0),
    (2, 2, 32, 16, 7, 3, 2, 1, 2, 1, False, 0),    # tap by tap: two channel blocks, stride, dilation
    (1, 2, 16, 9, 11, 5, 3, 2, 1, 1, False, 0),    # tap by tap, 1-D
    (1, 2, 4, 16, 9, 3, 2, 1, 2, 2, False, 0),
    (3, 1, 2, 8, 5, 3, 1, 1, 1, 1, False, 0),
    (2, 2, 4, 4, 6, 3, 1, 1, 1, 4, False, 0),      # depthwise: tiled direct form
    (1, 2, 3, 6, 13, 5, 2, 2, 1, 3, False, 0),     # 1-D, two outputs per input channel, strided
    (3, 1, 2, 2, 6, 3, 1, 1, 2, 2, False, 0),      # 3-D depthwise, dilated
    (2, 2, 3, 3, 9, 3, 2, 0, 1, 3, False, 0),      # strided depthwise, no padding
    (2, 1, 6, 6, 7, 3, 2, 2, 2, 3, False, 0),      # grouped, 2 outputs per group: direct form
    (2, 2, 4, 16, 5, 3, 2, 1, 1, 1, True, 1),
    (1, 2, 4, 8, 5, 3, 2, 0, 2, 2, True, 0),
    (2, 1, 4, 32, 4, 3, 3, 2, 2, 2, True, 1),
    (3, 1, 2, 2, 3, 2, 2, 0, 1, 1, True, 0),       # transposed, direct form
    (2, 2, 16, 16, 6, 3, 1, 1, 1, 1, True, 0),     # transposed at stride 1: tap by tap
    (1, 2, 32, 8, 9, 5, 1, 3, 2, 1, True, 0),      # ... dilated, padded past the kernel's reach
    (3, 1, 16, 8, 4, 3, 1, 0, 1, 1, True, 0),
    (2, 2, 16, 16, 5, 3, 2, 1, 1, 1, True, 1),     # strided transposed: phase by phase
    (2, 1, 32, 8, 4, 3, 3, 1, 2, 1, True, 2),      # ... stride 3, dilation 2, output padding
    (1, 2, 16, 8, 7, 4, 2, 1, 2, 1, True, 0),      # ... a phase no tap reaches (gcd(s, d) = 2)
    (3, 1, 16, 8, 3, 2, 2, 0, 1, 1, True, 0),
    (2, 2, 3, 16, 7, 3, 1, 1, 1, 1, False, 0),     # RGB input (implicit GEMM; padded to 16 on tensor cores)
    (2, 2, 3, 16, 9, 3, 2, 1, 1, 1, False, 0),     # ... strided: implicit GEMM on tensor cores too
    (1, 3, 20, 8, 9, 3, 1, 2, 2, 1, False, 0),     # 20 channels: two blocks, the second 4/16 full
    (3, 1, 8, 16, 5, 3, 1, 1, 1, 1, False, 0),     # 3-D, 8 channels
]


@pytest.mark.parametrize("tc", [False, True], ids=["", "tensor-cores"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}d-g{c[9]}-{'T' if c[10] else 'F'}-s{c[6]}d{c[8]}")
def test_conv_matches_torch(run, case, tc):
    nd, n, c, o, size, k, s, p, d, g, tr, op = case
    torch.manual_seed(0)
    x = torch.randn(n, c, *([size] * nd))
    if tr:
        w = torch.randn(c, o // g, *([k] * nd))
        ref = getattr(F, f"conv_transpose{nd}d")(x, w, None, s, p, op, g, d)
    else:
        w = torch.randn(o, c // g, *([k] * nd))
        ref = getattr(F, f"conv{nd}d")(x, w, None, s, p, d, g)
    b = torch.randn(o)
    res = torch.randn(ref.shape[1:])            # a residual broadcast over the batch
    ref = torch.relu(ref + b.view(o, *([1] * nd))) + res
    X, W, B = (Value(nm, tuple(t.shape), "float32") for nm, t in (("x", x), ("w", w), ("b", b)))
    reg = ConvRegion(X, W, B, (s,) * nd, (p,) * nd, (d,) * nd, g, tr, (op,) * nd,
                     [B, Value("res", tuple(res.shape), "float32")],
                     [Output(Value("y", tuple(ref.shape), "float32"), C("add", C("max", E("acc"), K(0.0)), I("res")))],
                     tuple(ref.shape))
    text = emit_sketch(reg, "k0", tensor_cores=tc)
    assert ("matmul(" in text) == (o // g >= 8)
    # ungrouped, channels in blocks of 16: one (tap, channel block) loop, whose weight tile is
    # transposed unless the weight is a transposed conv's; on a tensor-core target other channel
    # counts of a plain conv too, on channels-last copies padded to 16 that two launches write
    padded = tc and o // g >= 8 and g == 1 and c % 16 != 0 and not tr and s == 1
    tapwise = o // g >= 8 and g == 1 and (c % 16 == 0 or padded)
    assert ("tap = step //" in text) == tapwise, text
    assert ("transpose(" in text) == (tapwise and not tr)
    assert (text.count('"parallel"') == 3 and "xcl[" in text and "wcl[" in text) == padded, text
    got = run(reg, {"x": x, "w": w, "b": b, "res": res}, TILES, tensor_cores=tc)["y"]
    torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c", [3, 64], ids=["implicit-gemm", "tap-by-tap"])
def test_a_conv_dot_on_gathered_patches_defaults_to_four_warps(c):
    """Both GEMM forms gather their patch tile through computed addresses; timed on an H200 they
    ran faster on four warps than on the eight an f32 GEMM of the same tile gets by default."""
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    X, W = Value("x", (8, c, 34, 34), "float32"), Value("w", (128, c, 3, 3), "float32")
    reg = ConvRegion(X, W, None, (1, 1), (0, 0), (1, 1), 1, False, (0, 0), [],
                     [Output(Value("y", (8, 128, 32, 32), "float32"), E("acc"))], (8, 128, 32, 32))
    text = emit_sketch(reg, "k0")
    assert ("transpose(" in text) == (c % 16 == 0)
    src = emit_triton(check_sketch(text), "k0")
    assert "tl.dot(" in src.code and src.tunables["K0_NUM_WARPS"] == 4


@pytest.mark.parametrize("nd, kernel, stride, tiles", [
    (2, (3, 5), (1, 1), {"BH": 2, "BW": 4}),    # asymmetric kernel, tails along both tile dims
    (2, (3, 3), (2, 1), {"BH": 4, "BW": 8}),
    (1, (7,), (1,), {"BW": 4}),
    (3, (2, 3, 3), (1, 2, 1), {"BH": 2, "BW": 4}),
])
def test_depthwise_takes_tiles_of_the_last_two_dims_with_literal_taps(run, nd, kernel, stride, tiles):
    """One input channel per group: the pooling emitter's [BH, BW] tiles (no flat pixel block),
    tap loops bounded by the weight's sizes as literals and unrolled, and an interior version of
    the window loop at stride 1 along the last dim; torch's result with tails on both tile dims."""
    torch.manual_seed(1)
    c, size = 3, (7, 10, 9)[-nd:]
    x = torch.randn(2, c, *size)
    w = torch.randn(c, 1, *kernel)
    pad = tuple(k // 2 for k in kernel)
    ref = getattr(F, f"conv{nd}d")(x, w, None, stride, pad, 1, c)
    X, W = Value("x", tuple(x.shape), "float32"), Value("w", tuple(w.shape), "float32")
    reg = ConvRegion(X, W, None, stride, pad, (1,) * nd, c, False, (0,) * nd, [],
                     [Output(Value("y", tuple(ref.shape), "float32"), C("tanh", E("acc")))], tuple(ref.shape))
    text = emit_sketch(reg, "k0")
    assert "BLOCK" not in text and "BW" in text and ("BH" in text) == (nd > 1), text
    assert f"w[O, CG, {', '.join(map(str, kernel))}]" in text.replace("tensor ", ""), text
    assert "unroll" in text and ("vectorize" in text) == (stride[-1] == 1)
    got = run(reg, {"x": x, "w": w}, tiles)["y"]
    torch.testing.assert_close(got, torch.tanh(ref), rtol=1e-4, atol=1e-4)


def test_padded_channels_last_copies_take_split_products_in_every_dot_mode():
    """On a tensor-core target an RGB-input conv multiplies the sketch's own channels-last temps:
    nothing for the host to copy, and K-major already, so DOT_MODE 3 and 4 both pick the split
    TF32 products from their layout (never IEEE products for lack of a copy)."""
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    X, W = Value("x", (2, 3, 18, 18), "float32"), Value("w", (32, 3, 3, 3), "float32")
    reg = ConvRegion(X, W, None, (1, 1), (0, 0), (1, 1), 1, False, (0, 0), [],
                     [Output(Value("y", (2, 32, 16, 16), "float32"), E("acc"))], (2, 32, 16, 16))
    code = emit_triton(check_sketch(emit_sketch(reg, "k0", tensor_cores=True)), "k0").code
    host = code[code.index("dot_mode = K0_DOT_MODE"):]
    mode4 = host[host.index("if dot_mode == 4"):].splitlines()[1]
    assert "_k_major(" not in host and "stride(3) == 1" in mode4 and "dot_x3 = 0" not in mode4, host
