"""GEMM emitter: tiled K loop with the epilogue fused, masked tails, batched and broadcast
operands, transposed operands as strided views."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from akg_rag.lower.emit import emit_sketch
from akg_rag.lower.region import Expr, GemmRegion, Output, Value

E, I, C, K = Expr, Expr.input, Expr.call, Expr.const
TILES = {"BM": 8, "BN": 8, "BK": 8, "GROUP_M": 2}   # small tiles: tails on M, N and K


def V(name, t, dtype="float32"):
    return Value(name, tuple(t.shape), dtype)


def gelu(v):
    return C("mul", C("mul", K(0.5), v), C("add", K(1.0), C("erf", C("mul", v, K(0.7071067811865476)))))


def test_linear_with_bias_and_gelu(run):
    a, wt, b = torch.randn(19, 21), torch.randn(13, 21), torch.randn(13)
    bt = wt.t()  # the transposed weight arrives as a strided view
    y = Value("y", (19, 13), "float32")
    reg = GemmRegion(V("a", a), V("w", bt), [V("b", b)], [Output(y, gelu(C("add", E("acc"), I("b"))))], (19, 13))
    text = emit_sketch(reg, "k0")
    assert "matmul(" in text and "GROUP_M" in text
    got = run(reg, {"a": a, "w": bt, "b": b}, TILES)["y"]
    torch.testing.assert_close(got, F.gelu(F.linear(a, wt, b)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("a_shape,b_shape", [((3, 9, 10), (3, 10, 11)), ((2, 3, 9, 10), (3, 10, 11)),
                                             ((2, 1, 9, 10), (1, 4, 10, 11))])
def test_batched_gemm_with_broadcast_batches_and_row_scale(run, a_shape, b_shape):
    a, b = torch.randn(a_shape), torch.randn(b_shape)
    ref = a @ b
    s = torch.randn(*ref.shape[:-1], 1)
    reg = GemmRegion(V("a", a), V("b", b), [V("s", s)], [Output(Value("y", tuple(ref.shape), "float32"),
                                                                C("mul", E("acc"), I("s")))], tuple(ref.shape))
    got = run(reg, {"a": a, "b": b, "s": s}, TILES)["y"]
    torch.testing.assert_close(got, ref * s, rtol=1e-5, atol=1e-5)


def test_two_outputs_and_default_tiles(run):
    a, b = torch.randn(5, 40), torch.randn(40, 3)
    reg = GemmRegion(V("a", a), V("b", b), [], [Output(Value("y", (5, 3), "float32"), E("acc")),
                                                 Output(Value("r", (5, 3), "float32"), C("max", E("acc"), K(0.0)))], (5, 3))
    got = run(reg, {"a": a, "b": b})
    torch.testing.assert_close(got["y"], a @ b, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got["r"], torch.relu(a @ b), rtol=1e-5, atol=1e-5)


def test_long_k_with_few_tiles_splits_k_and_sums_chunks_in_order(run):
    from akg_rag.lower.emit.gemm import split_k

    # a matvec-like product: one output tile, K long enough to split (8 chunks of 1024)
    assert split_k((3, 1), 8192, 16, 16) == 8
    assert split_k((4096, 4096), 8192, 128, 128) == 1     # enough tiles: no split
    assert split_k((3, 1), 2048, 16, 16) == 1              # short K: no split
    a, b, bias = torch.randn(3, 8192, dtype=torch.float64), torch.randn(8192, 1, dtype=torch.float64), torch.randn(1, dtype=torch.float64)
    reg = GemmRegion(V("a", a, "float64"), V("b", b, "float64"), [V("c", bias, "float64")],
                     [Output(Value("y", (3, 1), "float64"), C("add", E("acc"), I("c")))], (3, 1))
    text = emit_sketch(reg, "k0")
    assert "SPLIT_K = 8" in text and "temp" in text
    got = run(reg, {"a": a, "b": b, "c": bias}, {"BM": 16, "BN": 16, "BK": 256})["y"]
    torch.testing.assert_close(got, a @ b + bias, rtol=1e-9, atol=1e-9)


def test_zero_dim_epilogue_operand(run):
    a, b, s = torch.randn(5, 7), torch.randn(7, 3), torch.tensor(0.25)
    reg = GemmRegion(V("a", a), V("b", b), [V("s", s)],
                     [Output(Value("y", (5, 3), "float32"), C("min", E("acc"), I("s")))], (5, 3))
    got = run(reg, {"a": a, "b": b, "s": s.reshape(1)}, TILES)["y"]
    torch.testing.assert_close(got, torch.clamp(a @ b, max=0.25), rtol=1e-5, atol=1e-5)
