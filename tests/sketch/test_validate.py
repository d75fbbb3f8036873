"""Validation: each rule fires at the position of the offending node, and only there."""

from __future__ import annotations

import pytest

from akg_rag.errors import SketchError
from akg_rag.sketch import check_sketch

HEAD = "sketch v {\n  symbols: M, N\n  tensors: x[M, N]: f32 in; y[M, N]: f32 out\n  params: eps = 1e-5\n"


def body(*lines: str) -> str:
    return HEAD + "".join(f"  {ln}\n" for ln in lines) + "}\n"


GOOD = [
    '@llm_hint("parallel", "core")',
    "for m in range(M):",
    '  row = alloc([N], f32, hint="input_cache")',
    "  load(x[m, 0:N] -> row)",
    "  store(row -> y[m, 0:N])",
]


def test_good_sketch_validates():
    check_sketch(body(*GOOD))


@pytest.mark.parametrize(
    "lines, line, column, message",
    [
        # undeclared names
        (["for m in range(K):", "  t = 1", "store(t -> y[0, 0:N])"], 5, 18, "undeclared name 'K'"),
        (["t = alloc([N], f32)", "load(z[0, 0:N] -> t)", "store(t -> y[0, 0:N])"], 6, 8, "'z' is not a declared tensor"),
        # use before definition
        (["store(t -> y[0, 0:N])", "t = alloc([N], f32)"], 5, 3, "'t' is used before it is defined"),
        (["u = exp(t)", "t = alloc([N], f32)", "store(u -> y[0, 0:N])"], 5, 11, "'t' is used before it is defined"),
        # a local made inside a loop ends with it
        (["for m in range(M):", "  t = alloc([N], f32)", "store(t -> y[0, 0:N])"], 7, 3, "used before it is defined"),
        # rank and shape mismatches in loads and stores
        (["t = alloc([N], f32)", "load(x[0:N] -> t)", "store(t -> y[0, 0:N])"], 6, 8, "rank 2 but is indexed with 1"),
        (["t = alloc([M], f32)", "load(x[0, 0:N] -> t)", "store(t -> y[0, 0:N])"], 6, 3, "loading a [N] tile"),
        (["t = alloc([N], f32)", "load(x[0, 0:N] -> t)", "store(t -> y[0:M, 0:N])"], 7, 3, "storing 't' of shape [N]"),
        # compute shapes
        (["a = alloc([M], f32)", "b = alloc([N], f32)", "c = add(a, b)", "store(c -> y[0, 0:N])"], 7, 7, "do not broadcast"),
        (["a = alloc([M, N], f32)", "c = matmul(a, a)", "store(c -> y[0:M, 0:N])"], 6, 7, "matmul inner sizes differ"),
        (["a = alloc([N], f32)", "c = reduce_sum(a)", "store(a -> y[0, 0:N])"], 6, 7, "reduce_sum needs axis="),
        (["a = alloc([N], f32)", "c = reduce_sum(a, axis=2)", "store(a -> y[0, 0:N])"], 6, 26, "axis 2 is out of range"),
        (["a = alloc([N], f32)", "c = frobnicate(a)", "store(a -> y[0, 0:N])"], 6, 7, "unknown compute op 'frobnicate'"),
        (["a = alloc([N], f32)", "c = exp(a, a)", "store(a -> y[0, 0:N])"], 6, 7, "exp takes 1 positional"),
        # hint vocabulary
        (['@llm_hint("paralel", "core")', "for m in range(M):", "  t = 1", "store(t -> y[0, 0:N])"], 5, 3, "unknown hint kind 'paralel'"),
        (['@llm_hint("parallel", "cluster")', "for m in range(M):", "  t = 1", "store(t -> y[0, 0:N])"], 5, 3, "unknown hint context 'cluster'"),
        # alloc vocabulary
        (['t = alloc([N], f32, hint="cache")', "store(t -> y[0, 0:N])"], 5, 3, "unknown alloc hint 'cache'"),
        (['t = alloc([N], f32, tier="l2")', "store(t -> y[0, 0:N])"], 5, 3, "unknown memory tier 'l2'"),
        (["t = alloc([N], f16x)", "store(t -> y[0, 0:N])"], 5, 3, "unknown dtype 'f16x'"),
        # inputs are never stored, outputs always are
        (["t = alloc([N], f32)", "store(t -> x[0, 0:N])", "store(t -> y[0, 0:N])"], 6, 3, "'x' is an input (in)"),
        (["t = alloc([N], f32)"], 3, 29, "out tensor 'y' is never stored"),
        # assignments to declared names and shadowing loop variables
        (["N = 3", "t = alloc([N], f32)", "store(t -> y[0, 0:N])"], 5, 3, "cannot assign to declared name 'N'"),
        (["for M in range(N):", "  t = 1", "t = alloc([N], f32)", "store(t -> y[0, 0:N])"], 5, 3, "shadows an existing name"),
    ],
)
def test_rule_violations(lines, line, column, message):
    with pytest.raises(SketchError) as err:
        check_sketch(body(*lines))
    assert message in err.value.message, err.value
    assert (err.value.line, err.value.column) == (line, column), err.value


def test_declaration_rules():
    dup = "sketch d {\n  symbols: M, M\n  tensors: y[M]: f32 out\n}\n"
    with pytest.raises(SketchError, match="declared twice") as err:
        check_sketch(dup)
    assert (err.value.line, err.value.column) == (2, 15)
    bad_dir = "sketch d {\n  symbols: M\n  tensors: y[M]: f32 sideways\n}\n"
    with pytest.raises(SketchError, match="unknown direction 'sideways'"):
        check_sketch(bad_dir)
    temp = ("sketch d {\n  symbols: M\n  tensors: t[M]: f32 temp; y[M]: f32 out\n"
            "  a = alloc([M], f32)\n  load(t[0:M] -> a)\n  store(a -> t[0:M])\n  store(a -> y[0:M])\n}\n")
    with pytest.raises(SketchError, match="loaded before anything is stored") as err:
        check_sketch(temp)
    assert err.value.line == 5


def test_symbolic_extents_match_tiles():
    text = (
        "sketch t {\n  symbols: M, N\n  tensors: x[M, N]: f32 in; y[M, N]: f32 out\n  params: BM = 64\n"
        "  for i in range(0, M, BM):\n    a = alloc([BM, N], f32)\n"
        "    load(x[i * BM:i * BM + BM, 0:N] -> a)\n    b = alloc([64, 1, N], f32)\n"
        "    load(x[i:i + 64, 0:N] -> b)\n    c = add(a, 1)\n    store(c -> y[i:i + BM, 0:N])\n"
        "    store(b -> y[i:i + BM, 0:N])\n}\n"
    )
    check_sketch(text)  # BM = 64 is substituted; size-1 dims are ignored; extents simplify
