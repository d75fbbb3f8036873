"""Printing: parse(print(s)) == s, and printing is stable (print(parse(print(s))) == print(s))."""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.analysis import analyze_task
from akg_rag.errors import SketchError
from akg_rag.sketch import check_sketch, derive_sketch, parse_sketch, print_sketch

from .test_parse import RMS_NORM

TASKS = Path(__file__).parents[1] / "analysis" / "tasks"

HANDWRITTEN = [
    RMS_NORM,
    # precedence and associativity of index arithmetic, negative literals, every range form
    "sketch p {\n  symbols: N\n  tensors: x[N]: f32 in; y[N]: f32 out\n  params: B = 4, c = -2.5\n"
    "  for i in range(N):\n    for j in range(1, N):\n      for k in range(0, N - (j - 1), B * (2 + 1)):\n"
    "        t = alloc([B], f32, hint=\"scratch\", tier=\"local\", init=-1)\n"
    "        load(x[k - (j - i):k - (j - i) + B] -> t)\n"
    "        u = add(mul(t, c), -t)\n        w = (u - 1) * (2 - u) / (u % 3 // 2)\n"
    "        store(t -> y[k - (j - i):k - (j - i) + B])\n}\n",
    # hints, casts, where, apply with a string, keyword order
    "sketch q {\n  symbols: M, N\n  tensors: a[M, N]: f16 in; o[M]: f32 out\n"
    "  @llm_hint(\"parallel\", \"grid\")\n  @llm_hint(\"unroll\", \"thread\")\n  for m in range(M):\n"
    "    r = alloc([N], f16, init=0, hint=\"input_cache\")\n    load(a[m, 0:N] -> r)\n"
    "    s = where(gt(r, 0), cast(r, f32), apply(\"leaky\", r, 0.1))\n"
    "    v = reduce_max(s, keepdim=1, axis=0)\n    store(v -> o[m:m + 1])\n}\n",
]


@pytest.mark.parametrize("text", HANDWRITTEN, ids=["rms_norm", "arith", "hints"])
def test_handwritten_round_trip(text):
    sk = parse_sketch(text)
    printed = print_sketch(sk)
    assert parse_sketch(printed) == sk
    assert print_sketch(parse_sketch(printed)) == printed


def test_derived_sketches_round_trip():
    for path in sorted(TASKS.glob("*.py")):
        sk = derive_sketch(analyze_task(path))
        printed = print_sketch(sk)
        again = check_sketch(printed)
        assert again == sk, path.name
        assert print_sketch(again) == printed


def test_equality_sees_real_changes():
    a = parse_sketch(HANDWRITTEN[1])
    b = parse_sketch(HANDWRITTEN[1].replace("k - (j - i)", "k - j - i"))
    assert a != b  # (k - (j - i)) and ((k - j) - i) differ; positions are ignored, structure is not


def test_tile_extent_mismatch_is_caught():
    text = HANDWRITTEN[1].replace("load(x[k - (j - i):k - (j - i) + B] -> t)",
                                  "load(x[k:k + 2 * B] -> t)")
    with pytest.raises(SketchError, match=r"loading a \[2\*B\] tile|loading a \[8\] tile"):
        check_sketch(text)
