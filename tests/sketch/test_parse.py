"""Parsing: the documented example parses, and malformed text fails at the exact line and column."""

from __future__ import annotations

import pytest

from akg_rag.errors import SketchError
from akg_rag.sketch import check_sketch, parse_sketch
from akg_rag.sketch.nodes import Alloc, BinOp, Call, For, Load, Name, Neg, Num, Slice, Store

RMS_NORM = '''
sketch rms_norm {
  symbols: M, N
  tensors: x[M, N]: f32 in; w[N]: f32 in; y[M, N]: f32 out
  params: eps = 1e-6

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32, hint="input_cache")
    acc = alloc([1], f32, hint="accumulator", init=0)
    load(x[m, 0:N] -> row)
    acc = reduce_sum(mul(row, row), axis=0)
    r = rsqrt(add(div(acc, N), eps))
    out = alloc([N], f32, hint="output_buffer")
    out = mul(mul(row, r), w)
    store(out -> y[m, 0:N])
}
'''


def test_design_example_parses_and_validates():
    sk = check_sketch(RMS_NORM)
    assert sk.name == "rms_norm"
    assert [s.name for s in sk.symbols] == ["M", "N"]
    assert [(t.name, t.direction) for t in sk.tensors] == [("x", "in"), ("w", "in"), ("y", "out")]
    assert sk.params[0].name == "eps" and sk.params[0].value == Num(1e-6)
    loop = sk.body[0]
    assert isinstance(loop, For) and loop.var == "m" and loop.start is None
    assert [(h.kind, h.context) for h in loop.hints] == [("parallel", "core")]
    row = loop.body[0]
    assert isinstance(row, Alloc) and row.role == "input_cache" and row.dtype == "f32"
    load = loop.body[2]
    assert isinstance(load, Load) and load.dst == "row"
    assert load.src.indices == [Name("m"), Slice(Num(0), Name("N"))]
    assert isinstance(loop.body[-1], Store)
    assert (loop.line, loop.column) == (8, 3)


def test_expressions_respect_precedence_and_keywords():
    sk = parse_sketch(
        "sketch e {\n  symbols: N\n  params: c = 2\n"
        "  for i in range(1, N - 1, 2 * c):\n    t = reduce_max(-i + 2 * (N - i), axis=0)\n}\n"
    )
    loop = sk.body[0]
    assert loop.start == Num(1) and loop.step == BinOp("*", Num(2), Name("c"))
    value = loop.body[0].value
    assert isinstance(value, Call) and value.kwargs == {"axis": Num(0)}
    assert value.args[0] == BinOp("+", Neg(Name("i")), BinOp("*", Num(2), BinOp("-", Name("N"), Name("i"))))


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("sketch foo\n  symbols: N\n}\n", 1, 11, "expected '{'"),
        ("sketch foo {\n  symbols: N\n  tensors: x[N]: f32 in\n  for i in range(N):\n"
         "      t = alloc([1], f32)\n    load(x[i:i + 1] -> t)\n}\n", 6, 5, "unindent does not match"),
        ("sketch foo {\n  symbols: N $\n}\n", 2, 14, "unexpected character '$'"),
        ("sketch foo {\n  symbols: N\n  @llm_hint(\"parallel\", \"grid\")\n  t = alloc([N], f32)\n}\n",
         4, 3, "must be followed by a for loop"),
        ("sketch foo {\n  symbols: N\n  t = alloc([N], f32, role=\"x\")\n}\n", 3, 23, "unknown alloc keyword 'role'"),
        ("sketch foo {\n  symbols: N\n}\nextra\n", 4, 1, "after the closing '}'"),
        ("sketch foo {\n  symbols: N\n  for i in range(0, N, 1, 2):\n    t = 1\n}\n", 3, 28, "at most 3 arguments"),
        ("sketch foo {\n  symbols: N\n  for i in range(N):\n\tt = 1\n}\n", 4, 1, "tab in indentation"),
        ("sketch foo {\n  symbols: N\n  t = 1\n", 4, 1, "expected '}' closing the sketch"),
        ("sketch foo {\n  symbols: N\n  @hint(\"parallel\", \"grid\")\n  for i in range(N):\n    t = 1\n}\n",
         3, 4, "unknown decorator @hint"),
        ("sketch foo {\n  symbols: N\n  t = add(1, )\n}\n", 3, 14, "expected an expression, found ')'"),
        ("sketch foo {\n  symbols: N\n  for i in range(N)\n    t = 1\n}\n", 3, 20, "expected ':'"),
    ],
)
def test_parse_errors_have_exact_positions(text, line, column, message):
    with pytest.raises(SketchError) as err:
        parse_sketch(text)
    assert (err.value.line, err.value.column) == (line, column), err.value
    assert message in err.value.message
    assert str(err.value).startswith(f"line {line}, column {column}: ")
