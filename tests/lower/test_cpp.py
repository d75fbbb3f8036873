"""The C++/OpenMP backend: sketches lowered, built in ONE extension, compared with torch.

Every kernel below is lowered with ``emit_cpp`` and all of them are built by one ``load_inline``
call from ``build_cpp_module`` (~60 s on two busy cores; cached by source hash under the akg-rag
cache root, so a rerun of unchanged sources does not rebuild). Shapes are small and chosen to
leave tails (sizes that are not multiples of the tiles). Outputs are compared with the
verifier's own tolerances (``compare_tensor``: 1e-4 for fp32, 1e-2 for fp16/bf16).
"""

from __future__ import annotations

import hashlib
import os

import pytest
import torch
import torch.nn.functional as F

from akg_rag.errors import SketchError
from akg_rag.lower.cpp import build_cpp_module, emit_cpp
from akg_rag.search.tunables import find_tunables, rewrite
from akg_rag.sketch import check_sketch, parse_sketch
from akg_rag.verify.compare import compare_tensor
from akg_rag.verify.env import cache_root

SKETCHES: dict[str, str] = {}

SKETCHES["bias_nchw"] = """
sketch bias_nchw {
  symbols: N, C, H, W
  tensors: x[N, C, H, W]: f32 in; b[C]: f32 in; y[N, C, H, W]: f32 out
  params: BLOCK = 8, scale = 0.5

  @llm_hint("parallel", "grid")
  for n in range(N):
    @llm_hint("parallel", "grid")
    for c in range(C):
      @llm_hint("parallel", "grid")
      for h in range(H):
        @llm_hint("vectorize", "simd")
        for w0 in range(0, W, BLOCK):
          t = alloc([BLOCK], f32, hint="input_cache")
          load(x[n, c, h, w0:w0 + BLOCK] -> t)
          bc = alloc([1], f32)
          load(b[c:c + 1] -> bc)
          t = max(add(mul(t, scale), bc), 0.0)
          store(t -> y[n, c, h, w0:w0 + BLOCK])
}
"""

SOFTMAX = """
sketch row_softmax {
  symbols: M, N
  tensors: x[M, N]: DT in; y[M, N]: DT out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], DT, hint="input_cache")
    load(x[m, 0:N] -> row)
    mx = reduce_max(row, axis=0)
    e = exp(sub(row, mx))
    s = reduce_sum(e, axis=0)
    out = div(e, s)
    store(out -> y[m, 0:N])
}
"""
SKETCHES["softmax"] = SOFTMAX.replace("DT", "f32")
SKETCHES["softmax_f16"] = SOFTMAX.replace("DT", "f16")

SKETCHES["gelu_bf16"] = """
sketch gelu_bf16 {
  symbols: L
  tensors: x[L]: bf16 in; y[L]: bf16 out
  params: BLOCK = 16

  @llm_hint("parallel", "grid")
  for i in range(0, L, BLOCK):
    t = alloc([BLOCK], f32)
    load(x[i:i + BLOCK] -> t)
    t = apply("gelu", t)
    store(t -> y[i:i + BLOCK])
}
"""

SKETCHES["blocked_norm"] = """
sketch blocked_norm {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out
  params: BLOCK = 8, eps = 1e-5

  @llm_hint("parallel", "core")
  for m in range(M):
    acc = alloc([BLOCK], f32, hint="accumulator", init=0)
    acc2 = alloc([BLOCK], f32, hint="accumulator", init=0)
    @llm_hint("pipeline", "core")
    for k in range(0, N, BLOCK):
      t = alloc([BLOCK], f32)
      load(x[m, k:k + BLOCK] -> t)
      acc = add(acc, t)
      acc2 = add(acc2, mul(t, t))
    mean = div(reduce_sum(acc, axis=0), N)
    var = sub(div(reduce_sum(acc2, axis=0), N), mul(mean, mean))
    r = rsqrt(add(var, eps))
    for k2 in range(0, N, BLOCK):
      u = alloc([BLOCK], f32)
      load(x[m, k2:k2 + BLOCK] -> u)
      u = mul(sub(u, mean), r)
      store(u -> y[m, k2:k2 + BLOCK])
}
"""

SKETCHES["mean_02"] = """
sketch mean_02 {
  symbols: B, C, L
  tensors: x[B, C, L]: f32 in; y[C]: f32 out

  @llm_hint("parallel", "grid")
  for c in range(C):
    t = alloc([B, L], f32)
    load(x[unsqueeze(iota(B), axis=1), c, unsqueeze(iota(L), axis=0)] -> t)
    s = reduce_mean(reduce_mean(t, axis=0), axis=0)
    out = alloc([1], f32)
    out = s
    store(out -> y[c:c + 1])
}
"""

SKETCHES["maxpool"] = """
sketch maxpool {
  symbols: N, C, H, W, OH, OW
  tensors: x[N, C, H, W]: f32 in; y[N, C, OH, OW]: f32 out
  params: ks = 3, sd = 2, pd = 1

  @llm_hint("parallel", "grid")
  for n in range(N):
    @llm_hint("parallel", "grid")
    for c in range(C):
      @llm_hint("parallel", "grid")
      for oh in range(OH):
        hi = add(oh * sd - pd, iota(ks))
        wi = add(mul(unsqueeze(iota(OW), axis=1), sd) - pd, unsqueeze(iota(ks), axis=0))
        win = alloc([OW, ks, ks], f32)
        load(x[n, c, unsqueeze(unsqueeze(hi, axis=0), axis=2), unsqueeze(wi, axis=1)] -> win, other=-inf)
        m = reduce_max(reduce_max(win, axis=1), axis=1)
        store(m -> y[n, c, oh, 0:OW])
}
"""

SKETCHES["gemm_bias_relu"] = """
sketch gemm_bias_relu {
  symbols: M, N, K
  tensors: x[M, K]: f32 in; w[N, K]: f32 in; b[N]: f32 in; y[M, N]: f32 out
  params: BM = 8, BN = 16, BK = 8

  @llm_hint("parallel", "grid")
  for i in range(0, M, BM):
    @llm_hint("parallel", "grid")
    for j in range(0, N, BN):
      acc = alloc([BM, BN], f32, hint="accumulator", init=0)
      @llm_hint("pipeline", "core")
      for k in range(0, K, BK):
        a = alloc([BM, BK], f32)
        load(x[i:i + BM, k:k + BK] -> a)
        wt = alloc([BN, BK], f32)
        load(w[j:j + BN, k:k + BK] -> wt)
        acc = add(acc, matmul(a, transpose(wt)))
      bias = alloc([BN], f32)
      load(b[j:j + BN] -> bias)
      out = max(add(acc, bias), 0.0)
      store(out -> y[i:i + BM, j:j + BN])
}
"""

SKETCHES["gemm_kn"] = """
sketch gemm_kn {
  symbols: M, N, K
  tensors: x[M, K]: f32 in; w[K, N]: f32 in; y[M, N]: f32 out
  params: BM = 4, BN = 8, BK = 16, alpha = 0.25

  @llm_hint("parallel", "grid")
  for i in range(0, M, BM):
    @llm_hint("parallel", "grid")
    for j in range(0, N, BN):
      acc = alloc([BM, BN], f32, hint="accumulator", init=0)
      for k in range(0, K, BK):
        a = alloc([BM, BK], f32)
        load(x[i:i + BM, k:k + BK] -> a)
        bt = alloc([BK, BN], f32)
        load(w[k:k + BK, j:j + BN] -> bt)
        acc = acc + matmul(a, bt)
      out = acc * alpha
      store(out -> y[i:i + BM, j:j + BN])
}
"""

CUMSUM = """
sketch row_cumsum {
  symbols: M, N
  tensors: x[M, N]: DT in; y[M, N]: DT out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    c = scan_sum(row, axis=0)
    store(c -> y[m, 0:N])
}
"""
SKETCHES["row_cumsum"] = CUMSUM.replace("DT", "f32")
SKETCHES["row_cumsum_f64"] = CUMSUM.replace("DT", "f64")

SKETCHES["last_block_sum"] = """
sketch last_block_sum {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M]: f32 out
  params: BLOCK = 4

  @llm_hint("parallel", "core")
  for m in range(M):
    acc = alloc([1], f32, init=0)
    for k in range(0, N, BLOCK):
      acc = alloc([1], f32, init=0)
      t = alloc([BLOCK], f32)
      load(x[m, k:k + BLOCK] -> t)
      acc = add(acc, reduce_sum(t, axis=0))
    store(acc -> y[m:m + 1])
}
"""

SKETCHES["embedding"] = """
sketch embedding {
  symbols: L, V, D
  tensors: ids[L]: i64 in; w[V, D]: f32 in; y[L, D]: f32 out
  params: BL = 4

  @llm_hint("parallel", "grid")
  for l in range(0, L, BL):
    idt = alloc([BL], i64)
    load(ids[l:l + BL] -> idt)
    rows = alloc([BL, D], f32)
    load(w[idt, 0:D] -> rows)
    store(rows -> y[l:l + BL, 0:D])
}
"""

SKETCHES["scatter_rows"] = """
sketch scatter_rows {
  symbols: M, N
  tensors: x[M, N]: f32 in; perm[M]: i64 in; y[M, N]: f32 out

  @llm_hint("parallel", "grid")
  for i in range(M):
    r = alloc([1], i64)
    load(perm[i:i + 1] -> r)
    row = alloc([N], f32)
    load(x[i, 0:N] -> row)
    store(row -> y[r, 0:N])
}
"""

SKETCHES["int_mask"] = """
sketch int_mask {
  symbols: L
  tensors: x[L]: i32 in; y[L]: bool out; z[L]: i32 out
  params: BLOCK = 16

  @llm_hint("parallel", "grid")
  for i in range(0, L, BLOCK):
    t = alloc([BLOCK], i32)
    load(x[i:i + BLOCK] -> t)
    m = logical_and(gt(t, 0), lt(t % 3, 2))
    store(m -> y[i:i + BLOCK])
    q = where(m, t // 2, neg(t))
    store(q -> z[i:i + BLOCK])
}
"""

SKETCHES["int_bits"] = """
sketch int_bits {
  symbols: L
  tensors: x[L]: i32 in; b[L]: bool in; y[L]: i32 out; c[L]: bool out
  params: BLOCK = 16

  @llm_hint("parallel", "grid")
  for i in range(0, L, BLOCK):
    t = alloc([BLOCK], i32)
    load(x[i:i + BLOCK] -> t)
    m = alloc([BLOCK], bool)
    load(b[i:i + BLOCK] -> m)
    q = bitwise_or(bitwise_xor(t, bitwise_and(t, 6)), bitwise_not(neg(t)))
    store(q -> y[i:i + BLOCK])
    k = bitwise_or(bitwise_xor(m, gt(t, 0)), bitwise_not(m))
    store(k -> c[i:i + BLOCK])
}
"""

SKETCHES["sign_bits"] = """
sketch sign_bits {
  symbols: L
  tensors: x[L]: f32 in; n[L]: i32 in; y[L]: bool out; c[L]: bool out
  params: BLOCK = 16

  @llm_hint("parallel", "grid")
  for i in range(0, L, BLOCK):
    t = alloc([BLOCK], f32)
    load(x[i:i + BLOCK] -> t)
    k = alloc([BLOCK], i32)
    load(n[i:i + BLOCK] -> k)
    sb = signbit(t)
    store(sb -> y[i:i + BLOCK])
    sk = signbit(k)
    store(sk -> c[i:i + BLOCK])
}
"""

SKETCHES["col_cumsum"] = """
sketch col_cumsum {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out
  params: BN = 4

  @llm_hint("parallel", "grid")
  for j in range(0, N, BN):
    t = alloc([M, BN], f32)
    load(x[0:M, j:j + BN] -> t)
    t = scan_sum(t, axis=0)
    store(t -> y[0:M, j:j + BN])
}
"""

SKETCHES["row_cumsum_rev"] = CUMSUM.replace("DT", "f32").replace("row_cumsum", "row_cumsum_rev").replace(
    "scan_sum(row, axis=0)", "scan_sum(row, axis=0, reverse=1)")
SKETCHES["col_cumprod_rev"] = SKETCHES["col_cumsum"].replace("col_cumsum", "col_cumprod_rev").replace(
    "scan_sum(t, axis=0)", "scan_prod(t, axis=0, reverse=1)")

SKETCHES["row_argmax"] = """
sketch row_argmax {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M]: i64 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    a = reduce_argmax(row, axis=0)
    o = alloc([1], i64)
    o = a
    store(o -> y[m:m + 1])
}
"""

SKETCHES["row_max_min"] = """
sketch row_max_min {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M]: f32 out; z[M]: f32 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    a = alloc([1], f32)
    a = reduce_max(row, axis=0)
    store(a -> y[m:m + 1])
    b = alloc([1], f32)
    b = reduce_min(row, axis=0)
    store(b -> z[m:m + 1])
}
"""

SKETCHES["col_argmin"] = """
sketch col_argmin {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[N]: i64 out
  params: BN = 4

  @llm_hint("parallel", "grid")
  for j in range(0, N, BN):
    t = alloc([M, BN], f32)
    load(x[0:M, j:j + BN] -> t, other=inf)
    a = reduce_argmin(t, axis=0)
    store(a -> y[j:j + BN])
}
"""

SKETCHES["center"] = """
sketch center {
  symbols: M, N
  tensors: x[M, N]: f32 in; s[M]: f32 temp; y[M, N]: f32 out
  params: BLOCK = 8

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    mu = alloc([1], f32)
    mu = reduce_mean(row, axis=0)
    store(mu -> s[m:m + 1])
  @llm_hint("parallel", "grid")
  for m2 in range(M):
    @llm_hint("parallel", "grid")
    for j in range(0, N, BLOCK):
      t = alloc([BLOCK], f32)
      load(x[m2, j:j + BLOCK] -> t)
      mu2 = alloc([1], f32)
      load(s[m2:m2 + 1] -> mu2)
      t = sub(t, mu2)
      store(t -> y[m2, j:j + BLOCK])
}
"""

# The GEMM again under another name, its tunables rewritten in the C++ text as the search does it.
RETILED = {"GEMM_B_BM": 3, "GEMM_B_BN": 32, "GEMM_B_BK": 5}


def _sources():
    srcs = [emit_cpp(check_sketch(text), name) for name, text in SKETCHES.items()]
    b = emit_cpp(check_sketch(SKETCHES["gemm_bias_relu"]), "gemm_b")
    b.code = rewrite(b.code, RETILED)
    return srcs + [b]


@pytest.fixture(scope="module")
def ext():
    """All test kernels in one extension, built once (cached by source hash)."""
    py = build_cpp_module(_sources(), "lowered_cpp_tests")
    digest = hashlib.sha256(py.encode()).hexdigest()[:16]
    build_dir = cache_root() / "lower-tests" / digest
    build_dir.mkdir(parents=True, exist_ok=True)
    ns: dict = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TORCH_EXTENSIONS_DIR", str(build_dir))
        exec(compile(py, "<lowered_cpp_tests>", "exec"), ns)  # noqa: S102 - our generated module
    return ns["lowered_cpp_tests"]


def close(expected: torch.Tensor, actual: torch.Tensor) -> None:
    diff = compare_tensor(expected, actual)
    assert diff is None, diff


# ---- pointwise ------------------------------------------------------------------------------------

def test_pointwise_per_channel_bias_and_scalar_on_a_permuted_view(ext):
    torch.manual_seed(0)
    b = torch.randn(3)
    for x in (torch.randn(2, 3, 5, 13), torch.randn(2, 5, 13, 3).permute(0, 3, 1, 2)):
        y = torch.empty(2, 3, 5, 13)
        ext.bias_nchw(x, b, y)
        close(torch.relu(x * 0.5 + b[None, :, None, None]), y)


def test_output_may_be_a_strided_view(ext):
    x, b = torch.randn(1, 2, 3, 9), torch.randn(2)
    y = torch.zeros(1, 3, 9, 2).permute(0, 3, 1, 2)     # channels-last storage
    ext.bias_nchw(x, b, y)
    close(torch.relu(x * 0.5 + b[None, :, None, None]), y)


def test_bf16_pointwise_computes_in_float(ext):
    x = (torch.randn(37) * 3).bfloat16()
    y = torch.empty_like(x)
    ext.gelu_bf16(x, y)
    close(F.gelu(x.float()).bfloat16(), y)


# ---- reductions -----------------------------------------------------------------------------------

def test_row_softmax_f32_and_f16(ext):
    x = torch.randn(6, 45) * 4
    y = torch.empty_like(x)
    ext.softmax(x, y)
    close(torch.softmax(x, 1), y)
    h = x.half()
    yh = torch.empty_like(h)
    ext.softmax_f16(h, yh)
    close(torch.softmax(h.float(), 1).half(), yh)


def test_blocked_two_pass_reduction_with_carried_accumulators(ext):
    x = torch.randn(5, 37) + 2
    y = torch.empty_like(x)
    ext.blocked_norm(x, y)
    close(F.layer_norm(x, (37,), eps=1e-5), y)


def test_mean_over_non_trailing_dims_through_gathers(ext):
    x = torch.randn(3, 4, 7)
    y = torch.empty(4)
    ext.mean_02(x, y)
    close(x.mean(dim=(0, 2)), y)


def test_a_zero_dim_tensor_passes_for_a_one_element_dimension(ext):
    x = torch.randn(3, 1, 7)
    y = torch.empty(())                 # a scalar result, as torch returns it
    ext.mean_02(x, y)
    close(x.mean(), y)


def test_max_pool_with_padding_and_stride(ext):
    x = torch.randn(2, 3, 9, 8)
    ref = F.max_pool2d(x, 3, 2, 1)
    y = torch.empty_like(ref)
    ext.maxpool(x, y)
    close(ref, y)


def test_argmax_and_argmin_give_the_first_extreme_index(ext):
    x = torch.randint(0, 3, (7, 10)).float()       # many ties
    y = torch.empty(7, dtype=torch.int64)
    ext.row_argmax(x, y)
    assert torch.equal(y, torch.argmax(x, 1))
    z = torch.empty(10, dtype=torch.int64)
    ext.col_argmin(x, z)
    assert torch.equal(z, torch.argmin(x, 0))


def test_max_and_min_of_a_row_holding_a_nan_are_nan(ext):
    """torch.amax / amin: NaN where the row holds one (omp simd's own max/min reduction lost it:
    such a row came out -inf)."""
    x = torch.randn(6, 301)
    x[1, 100] = x[4, 300] = x[5, 0] = float("nan")
    y, z = torch.empty(6), torch.empty(6)
    ext.row_max_min(x, y, z)
    torch.testing.assert_close(y, x.amax(1), equal_nan=True)
    torch.testing.assert_close(z, x.amin(1), equal_nan=True)


def test_scans_along_the_last_and_the_first_axis(ext):
    x = torch.randn(5, 11)
    y = torch.empty_like(x)
    ext.row_cumsum(x, y)
    close(torch.cumsum(x, 1), y)
    ext.col_cumsum(x, y)
    close(torch.cumsum(x, 0), y)


def test_reverse_scans_along_the_last_and_the_first_axis(ext):
    """``reverse=1``: each position combines itself and every later one (a backwards loop along
    the last axis; the memory-order sweep visiting the first axis from its end)."""
    x = torch.randn(5, 11)
    y = torch.empty_like(x)
    ext.row_cumsum_rev(x, y)
    close(torch.cumsum(x.flip(1), 1).flip(1), y)
    ext.col_cumprod_rev(x, y)
    close(torch.cumprod(x.flip(0), 0).flip(0), y)


def test_alloc_inside_a_loop_resets_the_local_made_before_it(ext):
    x = torch.randn(3, 10)
    y = torch.empty(3)
    ext.last_block_sum(x, y)            # each iteration restarts acc: the last block's sum remains
    close(x[:, 8:].sum(1), y)


def test_long_f32_scan_keeps_torch_accuracy(ext):
    torch.manual_seed(0)
    x = torch.randn(4, 32768)    # float running sums miss 1e-4 at 227 zero crossings here
    y = torch.empty_like(x)
    ext.row_cumsum(x, y)
    close(torch.cumsum(x, 1), y)


def test_f64_scan_accumulates_in_double(ext):
    x = torch.randn(3, 300, dtype=torch.float64) + 1e3     # large offset: float would drift
    y = torch.empty_like(x)
    ext.row_cumsum_f64(x, y)
    close(torch.cumsum(x, 1), y)


# ---- gathers and scatters -------------------------------------------------------------------------

def test_embedding_gathers_rows_by_loaded_ids(ext):
    ids, w = torch.tensor([3, 0, 7, 7, 2, 5, 1]), torch.randn(8, 10)
    y = torch.empty(7, 10)
    ext.embedding(ids, w, y)
    close(w[ids], y)


def test_store_through_an_index_tile_scatters_rows(ext):
    x, perm = torch.randn(6, 9), torch.randperm(6)
    y = torch.empty(6, 9)
    ext.scatter_rows(x, perm, y)
    expect = torch.empty_like(x)
    expect[perm] = x
    close(expect, y)


def test_integer_and_bool_tensors(ext):
    x = torch.randint(-20, 20, (37,), dtype=torch.int32)
    y, z = torch.empty(37, dtype=torch.bool), torch.empty(37, dtype=torch.int32)
    ext.int_mask(x, y, z)
    m = (x > 0) & (torch.remainder(x, 3) < 2)
    assert torch.equal(y, m)
    assert torch.equal(z, torch.where(m, torch.div(x, 2, rounding_mode="floor"), -x))


def test_bitwise_ops_on_integers_and_bools(ext):
    """Bits of negative integers as torch gives them; on bools the logical ops (``~`` is ``not``)."""
    x = torch.randint(-40, 40, (37,), dtype=torch.int32)
    b = torch.rand(37, generator=torch.Generator().manual_seed(3)) > 0.5
    y, c = torch.empty(37, dtype=torch.int32), torch.empty(37, dtype=torch.bool)
    ext.int_bits(x, b, y, c)
    assert torch.equal(y, (x ^ (x & 6)) | ~(-x))
    assert torch.equal(c, (b ^ (x > 0)) | ~b)


def test_signbit_reads_the_sign_bit(ext):
    """-0.0 and a negative NaN have their sign bit set (no comparison sees it); integers: below 0."""
    x = torch.randn(37)
    x[:4] = torch.tensor([-0.0, 0.0, -float("nan"), float("nan")])
    n = torch.randint(-40, 40, (37,), dtype=torch.int32)
    y, c = torch.empty(37, dtype=torch.bool), torch.empty(37, dtype=torch.bool)
    ext.sign_bits(x, n, y, c)
    assert torch.equal(y, torch.signbit(x)) and y[0] and y[2] and not y[1]
    assert torch.equal(c, n < 0)


# ---- matmul ---------------------------------------------------------------------------------------

def test_gemm_k_loop_with_bias_relu_epilogue(ext):
    x, w, b = torch.randn(19, 29), torch.randn(37, 29), torch.randn(37)
    y = torch.empty(19, 37)
    ext.gemm_bias_relu(x, w, b, y)
    close(torch.relu(x @ w.T + b), y)


def test_gemm_on_a_transposed_weight_view(ext):
    x, w = torch.randn(10, 35), torch.randn(13, 35).t()   # w is [K, N] with strides (1, K)
    y = torch.empty(10, 13)
    ext.gemm_kn(x, w, y)
    close(x @ w * 0.25, y)


def test_rewritten_tunables_retile_the_kernel(ext):
    src = emit_cpp(check_sketch(SKETCHES["gemm_bias_relu"]), "gemm_b")
    assert src.tunables == {"GEMM_B_BM": 8, "GEMM_B_BN": 16, "GEMM_B_BK": 8}
    assert {t.name: t.value for t in find_tunables(src.code)} == src.tunables
    x, w, b = torch.randn(11, 23), torch.randn(41, 23), torch.randn(41)
    y = torch.empty(11, 41)
    ext.gemm_b(x, w, b, y)        # built from the rewritten text: BM=3, BN=32, BK=5
    close(torch.relu(x @ w.T + b), y)


def _split_norm_sketch() -> str:
    """The reduction emitter's split form with two levels (a variance reads its mean), SPLIT = 4
    and 16-element blocks: chunk and block tails at the test's sizes."""
    from akg_rag.lower.emit.reduction import _Emitter
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    E, I, C = Expr, Expr.input, Expr.call
    mean = C("div", E("reduced", ref="s"), E("numel"))
    cen = C("sub", I("x"), mean)
    y = C("mul", cen, C("rsqrt", C("add", C("div", E("reduced", ref="v"), E("numel")), Expr.const(1e-5))))
    region = ReductionRegion([Value("x", (3, 5, 70), "float32")], (3, 5, 70), (1, 2),
                             [Reduction("s", "sum", I("x")), Reduction("v", "sum", C("mul", cen, cen))],
                             [Output(Value("y", (3, 5, 70), "float32"), y),
                              Output(Value("mu", (3, 1, 1), "float32"), mean, "reduced")])
    e = _Emitter(region, "split_norm")
    e.split(4)
    return e.w.text().replace("RBLOCK = 1024", "RBLOCK = 16")


SKETCHES["split_norm"] = _split_norm_sketch()


def _online_softmax_sketch() -> str:
    """The loop form's softmax (one pass for the running max and rescaled sum, one for the
    output), emitted for rows long enough to loop, run on shorter ones with 16-element blocks."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    C, I, R = Expr.call, Expr.input, (lambda n: Expr("reduced", ref=n))
    ex = C("exp", C("sub", I("x"), R("mx")))
    region = ReductionRegion([Value("x", (5, 9000), "float32")], (5, 9000), (1,),
                             [Reduction("mx", "max", I("x")), Reduction("s", "sum", ex)],
                             [Output(Value("y", (5, 9000), "float32"), C("div", ex, R("s")))])
    text = emit_sketch(region, "online_softmax")
    assert "mnew" in text
    return text.replace("RBLOCK = 1024", "RBLOCK = 16")


SKETCHES["online_softmax"] = _online_softmax_sketch()


# ---- launches and the host function ---------------------------------------------------------------

def test_two_launches_through_a_temp(ext):
    x = torch.randn(4, 21)
    y = torch.empty_like(x)
    ext.center(x, y)
    close(x - x.mean(1, keepdim=True), y)


def test_a_two_level_split_reduction_partials_combines_and_full_pass(ext):
    x = torch.randn(3, 5, 70) * 2 + 3
    y, mu = torch.empty_like(x), torch.empty(3, 1, 1)
    ext.split_norm(x, y, mu)
    close(F.layer_norm(x, (5, 70), eps=1e-5), y)
    close(x.mean((1, 2), keepdim=True), mu)


def test_online_softmax_with_masked_entries(ext):
    x = torch.randn(5, 70) * 4
    x[0, :40] = float("-inf")
    x[1, ::3] = float("-inf")
    x[3, 66] = 70.0
    y = torch.empty_like(x)
    ext.online_softmax(x, y)
    close(torch.softmax(x, 1), y)
    x[2] = float("-inf")                  # a row of -inf: nan, as torch gives
    ext.online_softmax(x, y)
    assert torch.isnan(y[2]).all() and torch.isnan(torch.softmax(x, 1)[2]).all()
    close(torch.softmax(x, 1)[[0, 1, 3, 4]], y[[0, 1, 3, 4]])


def test_wrong_shapes_dtypes_and_ranks_raise_clear_errors(ext):
    x, y = torch.randn(4, 8), torch.empty(4, 8)
    with pytest.raises(ValueError, match=r"tensor 'y' dim 1 has size 9 but N = 8 \(bound from x dim 1\)"):
        ext.softmax(x, torch.empty(4, 9))
    with pytest.raises(ValueError, match=r"tensor 'x' must have 2 dims \[M, N\]"):
        ext.softmax(torch.randn(4), y)
    with pytest.raises(TypeError, match="tensor 'x' must be float32"):
        ext.softmax(x.double(), y)
    ext.softmax(x, y)
    close(torch.softmax(x, 1), y)


# ---- lowering errors (no build) -------------------------------------------------------------------

def test_invalid_sketch_raises_sketch_error_with_position():
    bad = SKETCHES["softmax"].replace("e = exp(sub(row, mx))", "e = exp(sub(rowz, mx))")
    with pytest.raises(SketchError) as err:
        emit_cpp(parse_sketch(bad), "k")
    assert err.value.line == 11 and err.value.column > 1 and "rowz" in err.value.message


def test_top_level_statement_must_be_a_parallel_loop():
    text = SKETCHES["row_cumsum"].replace('  @llm_hint("parallel", "core")\n', "")
    with pytest.raises(SketchError) as err:
        emit_cpp(parse_sketch(text), "k")
    assert err.value.line == 6 and "parallel" in err.value.message


def test_unknown_apply_function_is_reported_at_its_call():
    text = SKETCHES["gelu_bf16"].replace('apply("gelu", t)', 'apply("frobnicate", t)')
    with pytest.raises(SketchError) as err:
        emit_cpp(check_sketch(text), "k")
    assert "frobnicate" in err.value.message and err.value.line == 11


def test_generated_source_shape():
    src = emit_cpp(check_sketch(SKETCHES["center"]), "k7")
    assert src.entry == "k7" and src.tensors == ["x", "y"]        # the temp is not an argument
    assert "void k7(at::Tensor t_x, at::Tensor t_y)" in src.code
    # one region per launch, in each of the three copies of the body (AVX-512, AVX2+FMA, base)
    assert src.code.count("#pragma omp parallel") == 6
    assert "static void k7_avx512" in src.code and "static void k7_avx2" in src.code
    assert "if (isa >= 2) return k7_avx512(t_x, t_y);" in src.code
    assert "constexpr int64_t K7_BLOCK = 8;" in src.code
    assert "at::empty({s_M}" in src.code                      # the temp, allocated by the host
    with pytest.raises(ValueError, match="repeat"):
        build_cpp_module([src, src], "m")
    py = build_cpp_module([src], "mod")
    assert "functions=['k7']" in py and "-march=native" not in py and "-fopenmp" in py
    compile(py, "<mod>", "exec")
