"""The backend-neutral analysis: launches, types, loop-carried locals, bindings, errors."""

from __future__ import annotations

import pytest

from akg_rag.errors import SketchError
from akg_rag.lower.typed import analyze
from akg_rag.sketch import check_sketch
from akg_rag.sketch.nodes import Alloc, Assign, For, Load, Store

GEMM = """
sketch gemm {
  symbols: M, N, K
  tensors: a[M, K]: f16 in; b[K, N]: f16 in; bias[N]: f32 in; c[M, N]: f32 out
  params: BM = 32, BN = 32, BK = 16, slope = 0.1

  @llm_hint("parallel", "grid")
  for i in range(0, M, BM):
    @llm_hint("parallel", "grid")
    for j in range(0, N, BN):
      acc = alloc([BM, BN], f32, hint="accumulator", init=0)
      @llm_hint("pipeline", "core")
      for k in range(0, K, BK):
        ta = alloc([BM, BK], f16)
        tb = alloc([BK, BN], f16)
        load(a[i:i + BM, k:k + BK] -> ta)
        load(b[k:k + BK, j:j + BN] -> tb)
        acc = add(acc, matmul(ta, tb))
      tbias = alloc([BN], f32)
      load(bias[j:j + BN] -> tbias)
      out = where(gt(acc, 0), acc, mul(acc, slope))
      out = add(out, tbias)
      store(out -> c[i:i + BM, j:j + BN])
}
"""


def _typed(text: str):
    return analyze(check_sketch(text))


def _stmts(body):
    for s in body:
        yield s
        if isinstance(s, For):
            yield from _stmts(s.body)


def test_gemm_launch_grid_tensors_and_tunables():
    t = _typed(GEMM)
    assert t.tunables == {"BM": 32, "BN": 32, "BK": 16}      # slope is a float: not tunable
    assert t.bindings == {"M": ("a", 0), "K": ("a", 1), "N": ("b", 1)}
    (launch,) = t.launches
    assert [ax.var for ax in launch.grid] == ["i", "j"]        # nested parallel loops joined
    assert launch.reads == ["a", "b", "bias"] and launch.writes == ["c"]
    assert launch.symbols == ["M", "N", "K"] and launch.tunables == ["BM", "BN", "BK"]
    k_loop = next(s for s in _stmts(launch.body) if isinstance(s, For))
    assert t.loop_carried(k_loop) == ["acc"]


def test_gemm_types_shapes_padding_and_exactness():
    t = _typed(GEMM)
    body = list(_stmts(t.launches[0].body))
    ta_load = next(s for s in body if isinstance(s, Load) and s.dst == "ta")
    d = t.definition(ta_load)
    assert [s.text for s in d.value.shape] == ["BM", "BK"]     # i:i+BM simplified to BM
    assert d.value.dtype == "f32" and d.value.exact == "f16"   # f16 loads compute in f32, exactly
    assert all(s.may_pad for s in d.value.shape)               # tunables may be any value
    (mm,) = t.matmuls
    assert str(t.type_of(mm)) == "f32[BM, BN]"
    out = [s for s in body if isinstance(s, Assign) and s.target == "out"]
    assert t.type_of(out[0].value.args[0]).kind == "bool"       # gt(...) gives bool
    store = next(s for s in body if isinstance(s, Store))
    assert str(t.type_of(store)) == "f32[BM, BN]"


def test_constant_power_of_two_extents_are_not_padded():
    t = _typed("""
sketch k {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  @llm_hint("parallel", "grid")
  for b in range(0, N, 64):
    v = alloc([64], f32)
    load(x[b:b + 64] -> v)
    r = iota(48)
    store(v -> y[b:b + 64])
}
""")
    body = t.launches[0].body
    assert not t.definition(body[1]).value.shape[0].may_pad
    r = t.definition(body[2]).value
    assert r.shape[0].value == 48 and r.shape[0].may_pad and r.dtype == "i32"


def test_local_dtype_is_the_promotion_of_its_values():
    t = _typed("""
sketch acc {
  symbols: M, N
  tensors: x[M, N]: f64 in; y[M]: f64 out
  @llm_hint("parallel", "core")
  for m in range(M):
    s = 0
    for j in range(N):
      v = alloc([1], f64)
      load(x[m, j:j + 1] -> v)
      s = s + reduce_sum(v, axis=0)
    store(s -> y[m])
}
""")
    body = list(_stmts(t.launches[0].body))
    init = t.definition(body[0])
    assert init.value.dtype == "i32" and init.value.weak
    assert init.target.dtype == "f64" and not init.target.weak    # widened by the loop's sums
    loop = body[1]
    assert t.loop_carried(loop) == ["s"]


def test_keepdim_reshape_and_gather_shapes():
    t = _typed("""
sketch g {
  symbols: N, C, H
  tensors: x[N, C, H]: f32 in; y[N, H]: f32 out
  @llm_hint("parallel", "grid")
  for n in range(N):
    c = unsqueeze(iota(C), axis=1)
    t = alloc([C, H], f32)
    load(x[n, c, 0:H] -> t, other=0)
    s = reduce_sum(t, axis=0, keepdim=1)
    store(s -> y[n, 0:H])
}
""")
    body = t.launches[0].body
    assert str(t.type_of(body[0].value)) == "i32[C, 1]"
    load = body[2]
    assert str(t.definition(load).value) == "f32[C, 1, H]"       # gather shape, then the slice
    assert str(t.definition(body[3]).value) == "f32[1, H]"


@pytest.mark.parametrize("text, message, line", [
    ("""
sketch bad {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  v = alloc([1], f32)
  @llm_hint("parallel", "grid")
  for i in range(N):
    load(x[i:i + 1] -> v)
    store(v -> y[i:i + 1])
}
""", "top-level statement", 5),
    ("""
sketch bad {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(N):
    @llm_hint("parallel", "grid")
    for j in range(i, N):
      v = alloc([1], f32)
      load(x[j:j + 1] -> v)
      store(v -> y[j:j + 1])
}
""", "rectangular", 8),
    ("""
sketch bad {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(N):
    for j in range(N):
      v = alloc([j], f32)
      store(v -> y[0:j])
}
""", "loop variable 'j'", 8),
    ("""
sketch bad {
  symbols: N, K
  tensors: x[N]: f32 in; t[K]: f32 temp; y[N]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(N):
    v = alloc([1], f32)
    load(x[i:i + 1] -> v)
    store(v -> t[i:i + 1])
    store(v -> y[i:i + 1])
}
""", "symbol 'K'", 3),
    ("""
sketch bad {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  @llm_hint("parallel", "grid")
  for i in range(0, N, 16):
    v = alloc([16], f32, init=0)
    for k in range(4):
      v = alloc([8], f32)
    store(v -> y[i:i + 16])
}
""", "inside a loop", 9),
    ("""
sketch bad {
  symbols: N
  tensors: x[N]: f32 in; y[N]: f32 out
  params: BLOCK = 64
  @llm_hint("parallel", "grid")
  for i in range(0, N, BLOCK):
    v = alloc([BLOCK], f32)
    load(x[i:i + BLOCK] -> v)
    w = add(v, cast(iota(64), f32))
    store(w -> y[i:i + BLOCK])
}
""", "tunables kept symbolic", 10),
])
def test_what_cannot_be_lowered_raises_with_a_position(text, message, line):
    with pytest.raises(SketchError) as err:
        _typed(text)
    assert message in str(err.value)
    assert err.value.line == line and err.value.column > 0
