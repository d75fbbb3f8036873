"""Pointwise emitter: sketches validate and, run by the interpreter, match torch (flat and rows
forms, broadcasting, constants, several outputs, non-float dtypes, seeded random chains)."""

from __future__ import annotations

import random

import pytest
import torch

from akg_rag.lower.emit import emit_sketch
from akg_rag.lower.region import Expr, Output, PointwiseRegion, Value

E, I, C, K = Expr, Expr.input, Expr.call, Expr.const


def test_quick_gelu_keeps_its_constant(run):
    x = torch.randn(4, 5)
    reg = PointwiseRegion([Value("x", (4, 5), "float32")],
                          [Output(Value("y", (4, 5), "float32"),
                                  C("mul", I("x"), C("sigmoid", C("mul", K(1.702), I("x")))))], (4, 5))
    assert "1.702" in emit_sketch(reg, "k0")
    out = run(reg, {"x": x}, {"BLOCK": 8})
    torch.testing.assert_close(out["y"], x * torch.sigmoid(1.702 * x))


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 300), (7,), ()])
def test_broadcast_inputs_and_two_outputs(run, shape):
    a = torch.randn(shape)
    bshape = tuple(1 if i % 2 == 0 else s for i, s in enumerate(shape))
    b = torch.randn(bshape)
    c = torch.randn(shape[-1:])  # lower rank: right-aligned
    reg = PointwiseRegion(
        [Value("a", shape, "float32"), Value("b", bshape, "float32"), Value("c", tuple(c.shape), "float32")],
        [Output(Value("y", shape, "float32"), C("add", C("mul", I("a"), I("b")), I("c"))),
         Output(Value("m", shape, "bool"), C("gt", I("a"), K(0.0))),
         Output(Value("z", shape, "float32"), C("exp", I("b")))],   # only a broadcast input
        shape)
    out = run(reg, {"a": a, "b": b, "c": c}, {"BLOCK": 16})
    torch.testing.assert_close(out["y"], a * b + c)
    assert torch.equal(out["m"], a > 0)
    torch.testing.assert_close(out["z"], torch.exp(b).expand(shape))


def test_rows_form_is_used_for_a_long_last_dim_and_masks_the_tail(run):
    x = torch.randn(3, 300)
    reg = PointwiseRegion([Value("x", (3, 300), "float32")],
                          [Output(Value("y", (3, 300), "float32"), C("tanh", I("x")))], (3, 300))
    text = emit_sketch(reg, "k0")
    assert "load(x[row, c0:c0 + BLOCK]" in text and "%" not in text.split("c0 =")[1]  # no div/mod per element
    out = run(reg, {"x": x}, {"BLOCK": 128})   # 300 = 2 full blocks + a tail of 44
    torch.testing.assert_close(out["y"], torch.tanh(x))


def test_int_and_cast_ops(run):
    i = torch.randint(-5, 5, (6, 3))
    f = torch.randn(6, 3)
    reg = PointwiseRegion(
        [Value("i", (6, 3), "int64"), Value("f", (6, 3), "float32")],
        [Output(Value("y", (6, 3), "float32"),
                C("where", C("logical_and", C("ge", I("i"), K(0)), C("isnan", I("f"))),
                  K(float("nan")), C("mul", C("cast", I("i"), dtype="float32"), I("f")))),
         Output(Value("h", (6, 3), "float16"), C("cast", C("abs", I("i")), dtype="float16")),
         Output(Value("k", (6, 3), "int64"), C("add", C("mul", I("i"), K(3)), K(-1)))], (6, 3))
    out = run(reg, {"i": i, "f": f}, {"BLOCK": 8})
    torch.testing.assert_close(out["y"], i.float() * f)
    assert torch.equal(out["h"], i.abs().half())
    assert torch.equal(out["k"], i * 3 - 1)


UNARY = ["exp", "tanh", "sigmoid", "abs", "neg", "erf", "sin", "cos", "floor", "ceil"]
BINARY = ["add", "sub", "mul", "max", "min"]


def _random_chain(rng: random.Random, names: list[str], depth: int) -> Expr:
    if depth == 0 or rng.random() < 0.2:
        return I(rng.choice(names)) if rng.random() < 0.8 else K(round(rng.uniform(-2, 2), 3))
    if rng.random() < 0.4:
        return C(rng.choice(UNARY), _random_chain(rng, names, depth - 1))
    if rng.random() < 0.1:
        return C("where", C("gt", _random_chain(rng, names, depth - 1), K(0.0)),
                 _random_chain(rng, names, depth - 1), _random_chain(rng, names, depth - 1))
    return C(rng.choice(BINARY), _random_chain(rng, names, depth - 1), _random_chain(rng, names, depth - 1))


@pytest.mark.parametrize("seed", range(8))
def test_random_broadcast_chains(run, evaluate, seed):
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(seed)
    rank = rng.randint(1, 4)
    shape = tuple(rng.randint(1, 5) for _ in range(rank))
    values, tensors = [], {}
    for k in range(rng.randint(1, 3)):
        drop = rng.randint(0, rank - 1)
        s = tuple(1 if rng.random() < 0.3 else d for d in shape[drop:])
        values.append(Value(f"in{k}", s, "float32"))
        tensors[f"in{k}"] = torch.randn(s, generator=g)
    names = [v.name for v in values]
    exprs = [_random_chain(rng, names, 4) for _ in range(rng.randint(1, 2))]
    # every output reads at least one full-shape element: add a full-shape input
    values.append(Value("full", shape, "float32"))
    tensors["full"] = torch.randn(shape, generator=g)
    outs = [Output(Value(f"y{k}", shape, "float32"), C("add", e, I("full"))) for k, e in enumerate(exprs)]
    reg = PointwiseRegion(values, outs, shape)
    got = run(reg, tensors, {"BLOCK": 8})
    for k, e in enumerate(exprs):
        want = (evaluate(e, tensors) + tensors["full"]).expand(shape)
        torch.testing.assert_close(got[f"y{k}"], want, equal_nan=True)


def test_value_names_that_collide_with_generated_names(run):
    # inputs named like the emitter's own symbols and locals
    x = torch.randn(2, 3)
    reg = PointwiseRegion([Value("D0", (2, 3), "float32"), Value("offs", (2, 3), "float32")],
                          [Output(Value("pid", (2, 3), "float32"), C("add", I("D0"), I("offs")))], (2, 3))
    out = run(reg, {"D0": x, "offs": 2 * x}, {"BLOCK": 4})
    torch.testing.assert_close(out["pid"], 3 * x)


def test_reserved_value_name_is_refused():
    reg = PointwiseRegion([Value("range", (2,), "float32")],
                          [Output(Value("y", (2,), "float32"), I("range"))], (2,))
    with pytest.raises(ValueError, match="range"):
        emit_sketch(reg, "k0")
