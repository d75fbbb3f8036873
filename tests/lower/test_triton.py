"""The Triton backend against torch: every kernel family at small, awkward (non-power-of-two) sizes.

Runs under the Triton interpreter on a machine without a GPU (see conftest.py) and compiled on one.
"""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F

from akg_rag.errors import SketchError
from akg_rag.lower.triton import emit_triton
from akg_rag.search.tunables import tunable_values
from akg_rag.sketch import check_sketch
from tests.lower.conftest import INTERPRETED

BIAS_NCHW = """
sketch bias_act {
  symbols: N, C, H, W
  tensors: x[N, C, H, W]: f32 in; b[C]: f32 in; y[N, C, H, W]: f32 out
  params: alpha = 0.5

  @llm_hint("parallel", "grid")
  for n in range(N):
    t = alloc([C, H, W], f32, hint="input_cache")
    load(x[n, 0:C, 0:H, 0:W] -> t)
    bc = unsqueeze(unsqueeze(b, axis=1), axis=2)
    out = max(add(mul(t, alpha), bc), 0.0)
    store(out -> y[n, 0:C, 0:H, 0:W])
}
"""

BIAS_SCALAR = """
sketch bias_scalar {
  symbols: N, C, H, W
  tensors: x[N, C, H, W]: f32 in; b[C]: f32 in; y[N, C, H, W]: f32 out

  @llm_hint("parallel", "grid")
  for n in range(N):
    @llm_hint("parallel", "grid")
    for c in range(C):
      load(b[c] -> bv)
      t = alloc([H, W], f32)
      load(x[n, c, 0:H, 0:W] -> t)
      out = sigmoid(t * 2 - bv)
      store(out -> y[n, c, 0:H, 0:W])
}
"""


def test_pointwise_per_channel_bias_on_nchw_with_a_scalar_param(build, device):
    x = torch.randn(2, 3, 5, 6, device=device)
    b = torch.randn(3, device=device)
    y = torch.empty_like(x)
    fn, _, _ = build(BIAS_NCHW)
    fn(x, b, y)
    torch.testing.assert_close(y, torch.relu(x * 0.5 + b[None, :, None, None]), atol=1e-5, rtol=1e-5)
    fn2, _, _ = build(BIAS_SCALAR, "k2")
    y2 = torch.empty_like(x)
    fn2(x, b, y2)
    torch.testing.assert_close(y2, torch.sigmoid(x * 2 - b[None, :, None, None]), atol=1e-5, rtol=1e-5)


EXPM1 = """
sketch strided {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out
  params: BLOCK = 16

  @llm_hint("parallel", "grid")
  for m in range(M):
    @llm_hint("parallel", "grid")
    for j in range(0, N, BLOCK):
      v = alloc([BLOCK], f32)
      load(x[m, j:j + BLOCK] -> v)
      w = sub(exp(v), 1) * 3
      store(w -> y[m, j:j + BLOCK])
}
"""


def test_permuted_input_view_and_strided_output_view(build, device):
    base = torch.randn(37, 6, device=device)
    x = base.t()                                   # [6, 37], strides (1, 6)
    big = torch.zeros(6, 74, device=device)
    y = big[:, ::2]                                # [6, 37], strides (74, 2)
    fn, _, _ = build(EXPM1)
    fn(x, y)
    torch.testing.assert_close(y, (x.exp() - 1) * 3, atol=1e-5, rtol=1e-5)
    assert torch.all(big[:, 1::2] == 0)            # the gaps of the view are untouched


SOFTMAX = """
sketch softmax {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32, hint="input_cache")
    load(x[m, 0:N] -> row, other=-inf)
    mx = reduce_max(row, axis=0)
    e = exp(row - mx)
    s = reduce_sum(e, axis=0)
    out = div(e, s)
    store(out -> y[m, 0:N])
}
"""


def test_row_softmax_in_one_tile(build, device):
    x = torch.randn(4, 37, device=device) * 3
    y = torch.empty_like(x)
    fn, _, _ = build(SOFTMAX)
    fn(x, y)
    torch.testing.assert_close(y, torch.softmax(x, -1), atol=1e-6, rtol=1e-5)


LAYER_NORM = """
sketch layer_norm {
  symbols: M, N
  tensors: x[M, N]: f32 in; w[N]: f32 in; y[M, N]: f32 out
  params: BK = 16, eps = 1e-5

  @llm_hint("parallel", "core")
  for m in range(M):
    acc = alloc([1], f32, hint="accumulator", init=0)
    sq = alloc([1], f32, hint="accumulator", init=0)
    @llm_hint("pipeline", "core")
    for k in range(0, N, BK):
      t = alloc([BK], f32)
      load(x[m, k:k + BK] -> t)
      acc = acc + reduce_sum(t, axis=0)
      sq = sq + reduce_sum(t * t, axis=0)
    mean = acc / N
    rstd = rsqrt(sq / N - mean * mean + eps)
    for k in range(0, N, BK):
      t = alloc([BK], f32)
      load(x[m, k:k + BK] -> t)
      wt = alloc([BK], f32)
      load(w[k:k + BK] -> wt)
      o = (t - mean) * rstd * wt
      store(o -> y[m, k:k + BK])
}
"""


def test_blocked_two_pass_reduction_with_carried_accumulators(build, device):
    x = torch.randn(3, 50, device=device)
    w = torch.randn(50, device=device)
    fn, module, src = build(LAYER_NORM)
    assert src.tunables["K_BK"] == 16
    ref = F.layer_norm(x, (50,), eps=1e-5) * w
    for bk in (16, 12, 64):                        # the search rewrites tunables; 12 pads its tile
        module.K_BK = bk
        y = torch.empty_like(x)
        fn(x, w, y)
        torch.testing.assert_close(y, ref, atol=1e-4, rtol=1e-4)


MEAN_DIM1 = """
sketch mean_dim1 {
  symbols: B, C, L
  tensors: x[B, C, L]: f32 in; y[B, L]: f32 out
  params: BL = 8

  @llm_hint("parallel", "grid")
  for b in range(B):
    @llm_hint("parallel", "grid")
    for l0 in range(0, L, BL):
      c = unsqueeze(iota(C), axis=1)
      l = unsqueeze(iota(BL), axis=0) + l0
      t = alloc([C, BL], f32)
      load(x[b, c, l] -> t)
      m = reduce_mean(t, axis=0)
      store(m -> y[b, l0:l0 + BL])
}
"""


def test_mean_over_a_non_trailing_dim_through_gathers(build, device):
    x = torch.randn(2, 5, 13, device=device)
    y = torch.empty(2, 13, device=device)
    fn, _, _ = build(MEAN_DIM1)
    fn(x, y)
    torch.testing.assert_close(y, x.mean(1), atol=1e-5, rtol=1e-5)


MAXPOOL = """
sketch maxpool {
  symbols: N, C, H, W, OH, OW
  tensors: x[N, C, H, W]: f32 in; y[N, C, OH, OW]: f32 out

  @llm_hint("parallel", "grid")
  for n in range(N):
    @llm_hint("parallel", "grid")
    for c in range(C):
      oh = unsqueeze(iota(OH), axis=1)
      ow = unsqueeze(iota(OW), axis=0)
      acc = alloc([OH, OW], f32, hint="accumulator", init=-inf)
      @llm_hint("unroll", "core")
      for kh in range(3):
        for kw in range(3):
          v = alloc([OH, OW], f32)
          load(x[n, c, oh * 2 - 1 + kh, ow * 2 - 1 + kw] -> v, other=-inf)
          acc = max(acc, v)
      store(acc -> y[n, c, 0:OH, 0:OW])
}
"""


def test_max_pool_with_padding_and_stride(build, device):
    x = torch.randn(2, 3, 7, 9, device=device)
    ref = F.max_pool2d(x, 3, stride=2, padding=1)
    y = torch.empty_like(ref)
    fn, _, src = build(MAXPOOL)
    assert "tl.static_range(3)" in src.code        # unroll hint, constant bounds
    fn(x, y)
    torch.testing.assert_close(y, ref)


GEMM = """
sketch gemm {
  symbols: M, N, K
  tensors: a[M, K]: DT in; b[K, N]: DT in; bias[N]: f32 in; c[M, N]: DT out
  params: BM = 32, BN = 16, BK = 16

  @llm_hint("parallel", "grid")
  for i in range(0, M, BM):
    @llm_hint("parallel", "grid")
    for j in range(0, N, BN):
      acc = alloc([BM, BN], f32, hint="accumulator", init=0)
      @llm_hint("pipeline", "core")
      for k in range(0, K, BK):
        ta = alloc([BM, BK], DT, hint="input_cache")
        tb = alloc([BK, BN], DT, hint="weight_cache")
        load(a[i:i + BM, k:k + BK] -> ta)
        load(b[k:k + BK, j:j + BN] -> tb)
        acc = add(acc, matmul(ta, tb))
      tbias = alloc([BN], f32)
      load(bias[j:j + BN] -> tbias)
      out = max(add(acc, tbias), 0)
      store(out -> c[i:i + BM, j:j + BN])
}
"""


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_gemm_with_k_loop_and_bias_relu_epilogue(build, device, dt):
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    a = torch.randn(40, 50, device=device).to(dtype)
    b = torch.randn(50, 45, device=device).to(dtype)
    bias = torch.randn(45, device=device)
    c = torch.empty(40, 45, device=device, dtype=dtype)
    fn, module, src = build(GEMM.replace("DT", dt))
    # acc + a @ b is one dot accumulating into acc (bfloat16: through _dot_bf16, which the
    # interpreter can run: its own bfloat16 dot returns garbage)
    assert re.search(r"acc = (tl\.dot|_dot_bf16)\(.*, acc(, input_precision=.*)?\)$", src.code, re.M), src.code
    if dt == "bf16":
        assert "return tl.dot(x.to(tl.bfloat16), y.to(tl.bfloat16), acc)" in src.code
    elif dt == "f32":  # IEEE products or three TF32 ones (split operands): never a single TF32 product
        assert 'input_precision="tf32x3" if DOT_X3 else "ieee"' in src.code
        assert 'input_precision="tf32"' not in src.code
    else:
        assert "tl.dot(" in src.code and ".to(tl.float16)" in src.code
    ref = torch.relu(a.double() @ b.double() + bias.double())
    tol = 1e-4 if dt == "f32" else 1e-2
    for mode in ((1, 2, 3, 4) if dt == "f32" else (None,)):
        if mode is not None:
            module.K_DOT_MODE = mode
        c.zero_()
        fn(a, b, bias, c)
        torch.testing.assert_close(c.double(), ref, atol=tol, rtol=tol)


def test_dot_mode_by_layout_chooses_three_tf32_products_only_for_k_contiguous_operands(build, device):
    """K_DOT_MODE = 3 (the default) decides per call: three TF32 products (the kernel's DOT_X3 = 1)
    when A is row-major and B column-major along K (an nn.Linear weight's transpose), IEEE products
    otherwise; 1 and 2 force one; 4 copies each operand that does not run along K contiguously into
    a layout that does, then takes three TF32 products; anything else is refused before a launch."""
    fn, module, src = build(GEMM.replace("DT", "f32"))
    assert src.tunables["K_DOT_MODE"] == 3
    assert "dot_x3 = int(a.stride(1) == 1 and b.stride(0) == 1 and a.shape[1] % 16 == 0)" in src.code
    seen, seen_strides = [], []
    kernel = module.k_kernel

    class Recorder:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.append(kwargs["DOT_X3"])
                seen_strides.append((tuple(args[0].stride()), tuple(args[1].stride())))
                return kernel[grid](*args, **kwargs)
            return launch

    module.k_kernel = Recorder()
    a = torch.randn(40, 48, device=device)
    b_rows = torch.randn(48, 45, device=device)          # row-major [K, N]
    b_cols = torch.randn(45, 48, device=device).t()      # [K, N] with K contiguous
    bias = torch.randn(45, device=device)
    c = torch.empty(40, 45, device=device)
    a_cols = a.t().contiguous().t()                      # [M, K] with M contiguous
    for x, b, knob, want in ((a, b_rows, 3, 0), (a, b_cols, 3, 1), (a_cols, b_cols, 3, 0),
                             (a, b_cols, 1, 0), (a, b_rows, 2, 1),
                             (a_cols, b_rows, 4, 1), (a, b_cols, 4, 1)):  # 4: K-major copies first
        module.K_DOT_MODE = knob
        c.zero_()
        fn(x, b, bias, c)
        torch.testing.assert_close(c.double(), torch.relu(a.double() @ b.double() + bias.double()),
                                   atol=1e-4, rtol=1e-4)
        assert seen[-1] == want, (knob, x.stride(), b.stride(), seen)
        if knob == 4:  # the kernel read K-major copies; the caller's tensors keep their layout
            assert seen_strides[-1] == ((48, 1), (1, 48)) and b.stride() in ((45, 1), (1, 48))
    module.K_DOT_MODE = 0
    with pytest.raises(ValueError, match="K_DOT_MODE must be 1"):
        fn(a, b_rows, bias, c)


def test_dot_mode_by_layout_copies_an_operand_k_major_when_enough_rows_use_it(build, device):
    """Mode 3 copies an input operand that is not K-major into a K-major layout (then three TF32
    products) exactly when each of its elements meets at least ``_K_MAJOR_MIN_USES`` rows of the
    other operand: B is used by A's 40 rows, A by B's 45 columns. The caller's tensors are never
    changed, and the result stays the product."""
    fn, module, src = build(GEMM.replace("DT", "f32"))
    assert module._K_MAJOR_MIN_USES >= 256   # the default copies only for large products
    assert "_k_padded(a, 1, b, 0)" in src.code
    seen, ints = [], []
    kernel = module.k_kernel

    class Recorder:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.append((kwargs["DOT_X3"], tuple(args[0].stride()), tuple(args[1].stride())))
                ints.append({x for x in args if isinstance(x, int)})
                return kernel[grid](*args, **kwargs)
            return launch

    module.k_kernel = Recorder()
    a = torch.randn(40, 48, device=device)
    a_cols = a.t().contiguous().t()                      # [M, K] with M contiguous
    b_rows = torch.randn(48, 45, device=device)          # row-major [K, N]
    bias = torch.randn(45, device=device)
    c = torch.empty(40, 45, device=device)
    ref = lambda x, b: torch.relu(x.double() @ b.double() + bias.double())  # noqa: E731
    # (threshold, A, B) -> (DOT_X3, A strides, B strides) the kernel got
    cases = [(41, a, b_rows, (0, (48, 1), (45, 1))),       # 40 rows use B: below 41, no copy
             (40, a, b_rows, (1, (48, 1), (1, 48))),       # 40 >= 40: B copied K-major
             (40, a_cols, b_rows, (1, (48, 1), (1, 48))),  # both copied (A serves 45 columns)
             (45, a_cols, b_rows, (0, (48, 1), (45, 1))),  # A copied, B not: IEEE products
             (46, a_cols, b_rows, (0, (1, 40), (45, 1)))]  # neither copied
    for threshold, x, b, want in cases:
        module._K_MAJOR_MIN_USES = threshold
        c.zero_()
        fn(x, b, bias, c)
        torch.testing.assert_close(c.double(), ref(x, b), atol=1e-4, rtol=1e-4)
        assert seen[-1] == want, (threshold, seen[-1])
        assert b.stride() == (45, 1) and x.stride() in ((48, 1), (1, 40))
    # a broadcast operand (stride 0 along K) is never materialised by a copy; it is read as it is
    module._K_MAJOR_MIN_USES = 1
    b_bcast = torch.randn(1, 45, device=device).expand(48, 45)
    fn(a, b_bcast, bias, c)
    torch.testing.assert_close(c.double(), ref(a, b_bcast), atol=1e-4, rtol=1e-4)
    assert seen[-1] == (0, (48, 1), (0, 1))
    # K not a multiple of 16 (Triton's K-masked loads would stay scalar): both operands copied
    # K-major with K zero-padded to 64, the launch runs K = 64; below the threshold IEEE, uncopied
    a50, b50 = torch.randn(40, 50, device=device), torch.randn(50, 45, device=device)
    for x, y in ((a50, b50), (a50, b50.t().contiguous().t())):
        fn(x, y, bias, c)
        torch.testing.assert_close(c.double(), ref(x, y), atol=1e-4, rtol=1e-4)
        assert seen[-1] == (1, (64, 1), (1, 64)) and 64 in ints[-1] and 50 not in ints[-1]
    module._K_MAJOR_MIN_USES = 41          # B serves 40 rows: no padding, no copy
    fn(a50, b50, bias, c)
    torch.testing.assert_close(c.double(), ref(a50, b50), atol=1e-4, rtol=1e-4)
    assert seen[-1] == (0, (50, 1), (45, 1)) and 50 in ints[-1]


def test_k_is_not_padded_where_the_launch_uses_it_otherwise(build, device):
    """The epilogue divides by K: a zero-padded K would change the result, so the launch keeps
    K = 50 and takes IEEE products."""
    fn, module, src = build(GEMM.replace("DT", "f32").replace(
        "out = max(add(acc, tbias), 0)", "out = div(max(add(acc, tbias), 0), K)"))
    assert "= _k_padded(" not in src.code
    module._K_MAJOR_MIN_USES = 1
    a, b = torch.randn(40, 50, device=device), torch.randn(50, 45, device=device)
    bias, c = torch.randn(45, device=device), torch.empty(40, 45, device=device)
    fn(a, b, bias, c)
    want = torch.relu(a.double() @ b.double() + bias.double()) / 50
    torch.testing.assert_close(c.double(), want, atol=1e-4, rtol=1e-4)


SCAN = """
sketch cumsum {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: f32 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    c = scan_sum(row, axis=0)
    store(c -> y[m, 0:N])
}
"""


def test_scan_sum_along_a_row(build, device):
    x = torch.randn(3, 21, device=device)
    y = torch.empty_like(x)
    fn, _, _ = build(SCAN)
    fn(x, y)
    torch.testing.assert_close(y, x.cumsum(-1), atol=1e-5, rtol=1e-5)


ARGMAX = """
sketch argmax {
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M]: i64 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    i = reduce_argmax(row, axis=0)
    store(i -> y[m])
}
"""


def test_argmax_returns_the_first_maximum(build, device):
    x = torch.randint(0, 3, (6, 11), device=device).float() - 5   # ties everywhere, all negative
    y = torch.empty(6, dtype=torch.int64, device=device)
    fn, _, _ = build(ARGMAX)
    fn(x, y)
    first = (x == x.max(1, keepdim=True).values).float().argmax(1)
    assert torch.equal(y, first)


TWO_LAUNCHES = """
sketch two_pass {
  symbols: M, N
  tensors: x[M, N]: f32 in; s[M]: f32 temp; y[M, N]: f32 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32)
    load(x[m, 0:N] -> row)
    t = reduce_sum(abs(row), axis=0)
    store(t -> s[m])
  @llm_hint("parallel", "core")
  for m in range(M):
    r = alloc([N], f32)
    load(x[m, 0:N] -> r)
    d = alloc([1], f32)
    load(s[m:m + 1] -> d)
    o = r / d
    store(o -> y[m, 0:N])
}
"""


def test_two_launches_through_a_temp_tensor(build, device):
    x = torch.randn(5, 9, device=device)
    y = torch.empty_like(x)
    fn, _, src = build(TWO_LAUNCHES)
    assert src.tensors == ["x", "y"]               # the temp is the host's business
    assert src.code.count("@triton.jit") == 2
    fn(x, y)
    torch.testing.assert_close(y, x / x.abs().sum(1, keepdim=True), atol=1e-6, rtol=1e-5)


RMS_F16 = """
sketch rms_norm {
  symbols: M, N
  tensors: x[M, N]: DT in; w[N]: f32 in; y[M, N]: DT out
  params: eps = 1e-6

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32, hint="input_cache")
    acc = alloc([1], f32, hint="accumulator", init=0)
    load(x[m, 0:N] -> row)
    acc = reduce_sum(mul(row, row), axis=0)
    r = rsqrt(add(div(acc, N), eps))
    out = mul(mul(row, r), w)
    store(out -> y[m, 0:N])
}
"""


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_half_precision_input_computes_in_f32(build, device, dt):
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dt]
    x = torch.randn(4, 33, device=device).to(dtype)
    w = torch.randn(33, device=device)
    y = torch.empty_like(x)
    fn, _, _ = build(RMS_F16.replace("DT", dt))
    fn(x, w, y)
    xf = x.float()
    ref = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w).to(dtype)
    torch.testing.assert_close(y.float(), ref.float(), atol=1e-2, rtol=1e-2)


def test_int64_index_path_computes_the_same(build, device, monkeypatch):
    fn, module, src = build(SOFTMAX)
    assert "USE_INT64: tl.constexpr" in src.code
    monkeypatch.setattr(module, "_span", lambda t: 2**31)   # as if a tensor were that large
    x = torch.randn(3, 10, device=device)
    y = torch.empty_like(x)
    fn(x, y)
    torch.testing.assert_close(y, torch.softmax(x, -1), atol=1e-6, rtol=1e-5)


def test_host_helpers_match_their_definitions(build):
    import triton

    _, module, src = build(SOFTMAX)
    assert "triton.next_power_of_2" not in src.code   # microseconds a call: the host uses _p2
    for n in (-3, 0, 1, 2, 3, 4, 5, 1023, 1024, 1025, 2**31 - 1):
        assert module._p2(n) == triton.next_power_of_2(max(1, n))
    base = torch.empty(6, 10, 4)
    for t in (base, base.transpose(0, 2), base[:, ::3], base[1:, 2], torch.empty(0, 5), base.expand(2, 6, 10, 4)):
        slow = max(t.numel(), 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride())))
        assert module._span(t) == slow, (t.shape, t.stride())


def test_wrong_arguments_raise_value_errors(build, device):
    fn, _, _ = build(LAYER_NORM)
    x = torch.randn(3, 8, device=device)
    with pytest.raises(ValueError, match="takes 3 tensors"):
        fn(x, torch.randn(8, device=device))
    with pytest.raises(ValueError, match=r"w has shape \(7,\), expected w\[N\] = \(8,\)"):
        fn(x, torch.randn(7, device=device), torch.empty_like(x))
    with pytest.raises(ValueError, match="rank 2"):
        fn(torch.randn(24, device=device), torch.randn(8, device=device), torch.empty_like(x))
    with pytest.raises(ValueError, match="dtype"):
        fn(x.double(), torch.randn(8, device=device), torch.empty_like(x))


@pytest.mark.parametrize("text, message", [
    (SOFTMAX.replace("e = exp(row - mx)", 'e = apply("no_such_fn", row)'), "no_such_fn"),
    (SOFTMAX.replace('  @llm_hint("parallel", "core")\n  for m', "  for m"), "top-level"),
])
def test_sketches_that_cannot_lower_raise_with_a_position(text, message):
    with pytest.raises(SketchError) as err:
        emit_triton(check_sketch(text), "k")
    assert message in str(err.value) and err.value.line > 0 and err.value.column > 0


def test_generated_module_reads_like_a_kernel_file():
    src = emit_triton(check_sketch(GEMM.replace("DT", "f32")), "k0")
    code = src.code
    assert code.startswith('"""Triton kernels generated from sketch `gemm`')
    assert "a_ptr,  # *f32: a[M, K] (in)" in code
    assert "BM: tl.constexpr,  # tunable (default 32)" in code
    assert "K0_BM = 32" in code and "BM = K0_BM" in code         # read at call time
    assert src.tunables == {"K0_BM": 32, "K0_BN": 16, "K0_BK": 16, "K0_NUM_WARPS": 4, "K0_NUM_STAGES": 3,
                            "K0_DOT_MODE": 3}
    assert tunable_values(code) == src.tunables                  # the search finds every one
    assert src.entry == "k0" and src.tensors == ["a", "b", "bias", "c"]
    compile(code, "k0.py", "exec")


SCALAR_ACC = """
sketch sumsq {
  symbols: M, N
  tensors: x[M, N]: f64 in; y[M]: f64 out; c[M]: i64 out
  params: BK = 8

  @llm_hint("parallel", "core")
  for m in range(M):
    s = 0
    n = 0
    for k in range(0, N, BK):
      t = alloc([BK], f64)
      load(x[m, k:k + BK] -> t)
      s = s + reduce_sum(t * t, axis=0)
      n = n + cast(reduce_sum(gt(t, 0), axis=0), i64)
    store(s -> y[m])
    store(n -> c[m])
}
"""


def test_scalar_locals_carried_by_a_loop_take_their_promoted_types(build, device):
    x = torch.randn(4, 21, device=device, dtype=torch.float64)
    y = torch.empty(4, device=device, dtype=torch.float64)
    c = torch.empty(4, device=device, dtype=torch.int64)
    fn, _, src = build(SCALAR_ACC)
    assert "s = tl.cast(0.0, tl.float64)" in src.code and "n = tl.cast(0, tl.int64)" in src.code
    fn(x, y, c)
    torch.testing.assert_close(y, (x * x).sum(1))
    assert torch.equal(c, (x > 0).sum(1))


TOTAL = """
sketch total {
  symbols: N
  tensors: x[N]: f32 in; s[1]: f32 out
  @llm_hint("parallel", "core")
  for p in range(1):
    v = alloc([N], f32)
    load(x[0:N] -> v)
    t = reduce_sum(v, axis=0)
    store(t -> s[0:1])
}
"""


def test_a_zero_dim_tensor_passes_for_a_declared_one_element_tensor(build, device):
    x = torch.randn(13, device=device)
    s = torch.empty((), device=device)             # a scalar result, as torch returns it
    fn, _, _ = build(TOTAL)
    fn(x, s)
    torch.testing.assert_close(s, x.sum(), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kind", ["sum", "argmin"])
def test_middle_dim_reduction_in_row_blocks_of_kept_elements(build, device, kind):
    """The reduction emitter's loop form for a reduction over a middle dim ([KBLOCK kept, RBLOCK]
    blocks along the contiguous kept dim), at a size where it is chosen, lowered and run."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    x = torch.randn(2, 1024, 40, device=device)
    dtype = "int64" if kind == "argmin" else "float32"
    region = ReductionRegion([Value("x", (2, 1024, 40), "float32")], (2, 1024, 40), (1,),
                             [Reduction("r", kind, Expr.input("x"))],
                             [Output(Value("y", (2, 40), dtype), Expr("reduced", ref="r"), "reduced")])
    text = emit_sketch(region, "k0")
    assert "RBLOCK" in text
    fn, _, _ = build(text, "k0")
    y = torch.empty(2, 40, device=device, dtype=getattr(torch, dtype))
    fn(x, y)
    if kind == "argmin":
        assert torch.equal(y, x.argmin(1))
    else:
        torch.testing.assert_close(y, x.sum(1), atol=1e-4, rtol=1e-5)


SM90_LAYOUTS = r"""
import importlib.util, json, re, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

path, name, ones, constexprs = sys.argv[1], sys.argv[2], set(json.loads(sys.argv[3])), json.loads(sys.argv[4])
spec = importlib.util.spec_from_file_location("cand", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
jit = getattr(module, name)
sig, consts, attrs = {}, {}, {}
for i, p in enumerate(jit.params):
    if p.is_constexpr or p.name in ones:
        sig[p.name] = "constexpr"
        consts[p.name] = constexprs.get(p.name, 1)
    elif p.name.endswith("_ptr"):
        sig[p.name] = "*fp32"
        attrs[(i,)] = [["tt.divisibility", 16]]
    else:
        sig[p.name] = "i32"
compiled = triton.compile(ASTSource(fn=jit, signature=sig, constexprs=consts, attrs=attrs),
                          target=GPUTarget("cuda", 90, 32), options={"num_warps": constexprs.get("num_warps", 4)})
ttgir = compiled.asm["ttgir"]
layouts = dict(re.findall(r"^(#\w+) = (#ttg\.blocked<.*>)$", ttgir, re.M))
loads = [layouts.get(m, m) for m in re.findall(r"tt\.load .*?: tensor<.*?, (#\w+)>", ttgir)]
import os, subprocess, tempfile
ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
    f.write(compiled.asm["ptx"])
info = subprocess.run([ptxas, "-arch=sm_90a", "-v", f.name, "-o", os.devnull], capture_output=True, text=True).stderr
spills = sum(int(n) for n in re.findall(r"(\d+) bytes spill stores", info))
regs = max([int(n) for n in re.findall(r"Used (\d+) registers", info)] or [0])
mma = len(re.findall(r"\b(?:wgmma\.mma_async|mma\.sync)\.", compiled.asm["ptx"]))
ptx = compiled.asm["ptx"]
hints = {"evict_last": len(re.findall(r"ld\.global\.L1::evict_last", ptx)),
         "evict_first": len(re.findall(r"ld\.global\.L1::evict_first", ptx)),
         "streamed": len(re.findall(r"st\.global\.cs\.", ptx)),
         "plain_loads": len(re.findall(r"ld\.global\.(?:v\d\.)?b", ptx))}
print(json.dumps({"loads": loads, "spill_bytes": spills, "registers": regs, "mma": mma, "hints": hints}))
"""


def _sm90_compile(path, name: str, ones: set[str], constexprs: dict) -> dict:
    """Compile kernel ``name`` of module ``path`` for sm_90 without a GPU, in a child without the
    interpreter (pointers 16-byte aligned, the ``ones`` integer arguments specialised to 1 as
    Triton does at launch): {"loads": layouts of its tt.load ops, "spill_bytes", "registers"}
    (ptxas -v). Skips where Triton cannot do that."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    run = subprocess.run([sys.executable, "-c", SM90_LAYOUTS, str(path), name, json.dumps(sorted(ones)),
                          json.dumps(constexprs)], capture_output=True, text=True, env=env, timeout=300)
    if run.returncode != 0:
        pytest.skip(f"no offline sm_90 compile here: {run.stderr.strip().splitlines()[-1:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_middle_dim_reduction_compiles_to_coalesced_loads(tmp_path):
    """Compiled for an H100/H200 (offline, no GPU needed): the loads of a reduction over a middle
    dim put a warp's threads along the contiguous kept dim (axis 0 of the [KBLOCK, RBLOCK] tile),
    not down the strided reduced dim (one sector per thread, what made argmin 0.18x of eager)."""
    import importlib.util
    import re

    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    region = ReductionRegion([Value("x", (128, 4096, 4095), "float32")], (128, 4096, 4095), (1,),
                             [Reduction("r", "sum", Expr.input("x"))],
                             [Output(Value("y", (128, 4095), "float32"), Expr("reduced", ref="r"), "reduced")])
    src = emit_triton(check_sketch(emit_sketch(region, "k0")), "k0")
    path = tmp_path / "k0_mid.py"
    path.write_text(src.code)
    spec = importlib.util.spec_from_file_location("k0_mid", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    constexprs = {"KBLOCK": module.K0_KBLOCK, "RBLOCK": module.K0_RBLOCK, "BLOCK_KBLOCK": module.K0_KBLOCK,
                  "BLOCK_RBLOCK": module.K0_RBLOCK, "USE_INT64": False}
    assert "x_stride2" in src.code and "y_stride1" in src.code
    layouts = _sm90_compile(path, "k0_kernel", {"x_stride2", "y_stride1"}, constexprs)["loads"]
    assert layouts, "no load compiled"
    for layout in layouts:
        order = [int(v) for v in re.search(r"order = \[([\d, ]+)\]", layout).group(1).split(",")]
        threads = [int(v) for v in re.search(r"threadsPerWarp = \[([\d, ]+)\]", layout).group(1).split(",")]
        assert order[0] == 0 and threads[0] >= 8, layout


# the GEMM above in f32 (or 16-bit) at the lowering's default 128 x 128 x 32 tile
GEMM_F32 = GEMM.replace("DT", "f32").replace("BM = 32, BN = 16, BK = 16", "BM = 128, BN = 128, BK = 32")


def test_a_wide_f32_dot_defaults_to_eight_warps_and_compiles_without_spills(tmp_path):
    """An f32 dot with IEEE products keeps its 128 x 128 accumulator in registers: the default is
    eight warps (four spill on sm_90), checked by compiling offline and reading ptxas -v. A
    16-bit dot (tensor cores) and a narrower f32 tile keep four."""
    src = emit_triton(check_sketch(GEMM_F32), "k0")
    assert src.tunables["K0_NUM_WARPS"] == 8
    wide16 = GEMM.replace("DT", "f16").replace("BM = 32, BN = 16", "BM = 128, BN = 128")
    half = emit_triton(check_sketch(wide16), "k0")
    narrow = emit_triton(check_sketch(GEMM_F32.replace("BM = 128, BN = 128", "BM = 64, BN = 16")), "k0")
    assert half.tunables["K0_NUM_WARPS"] == 4 and narrow.tunables["K0_NUM_WARPS"] == 4
    path = tmp_path / "k0_mm.py"
    path.write_text(src.code)
    names = re.findall(r"^    (\w+_stride1),", src.code, re.M)
    base = {"BM": 128, "BN": 128, "BK": 32, "BLOCK_BM": 128, "BLOCK_BN": 128, "BLOCK_BK": 32,
            "USE_INT64": False, "DOT_X3": 0}
    got = _sm90_compile(path, "k0_kernel", set(names), {**base, "num_warps": 8})
    assert got["registers"] > 0 and got["spill_bytes"] == 0 and got["mma"] == 0, got
    four = _sm90_compile(path, "k0_kernel", set(names), {**base, "num_warps": 4})
    assert four["spill_bytes"] > 0, four       # what the default avoids
    # DOT_X3 = 1: the same dot as three TF32 products on the tensor cores (wgmma on sm_90)
    x3 = _sm90_compile(path, "k0_kernel", set(names), {**base, "DOT_X3": 1, "num_warps": 8})
    assert x3["mma"] > 0 and x3["spill_bytes"] == 0, x3


@pytest.mark.parametrize("form", ["split", "loop"])
@pytest.mark.parametrize("stat", ["var", "mad"])
def test_two_level_split_reduction_a_norm_over_few_long_rows(build, device, monkeypatch, stat, form):
    """A statistic that reads its mean, split or looped: a variance merges count, sum and squared
    deviations per lane and chunk in one level (split: partials, combine, then the full-domain
    pass; loop: one pass for both statistics, one for the output); a mean absolute deviation takes
    two levels. Tails in the chunks and blocks; the statistics kept."""
    import akg_rag.lower.emit.reduction as reduction
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    if form == "split":
        monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 64)
        monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 16)
    else:
        monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    E, I, C = Expr, Expr.input, Expr.call
    n = E("numel")
    mean = C("div", E("reduced", ref="s"), n)
    cen = C("sub", I("x"), mean)
    dev = C("mul", cen, cen) if stat == "var" else C("abs", cen)
    y = C("mul", cen, C("rsqrt", C("add", C("div", E("reduced", ref="v"), n), Expr.const(1e-5))))
    region = ReductionRegion([Value("x", (3, 5, 70), "float32")], (3, 5, 70), (1, 2),
                             [Reduction("s", "sum", I("x")), Reduction("v", "sum", dev)],
                             [Output(Value("y", (3, 5, 70), "float32"), y),
                              Output(Value("mu", (3, 1, 1), "float32"), mean, "reduced")])
    text = emit_sketch(region, "k0")
    if form == "split":
        launches = 3 if stat == "var" else 5    # (1 or 2 levels) x (partials, combine) + full pass
        assert "SPLIT = 16" in text and text.count('"parallel"') == launches
    else:                                       # one pass per level, then the output's
        assert "SPLIT" not in text and text.count('"pipeline"') == (2 if stat == "var" else 3)
    fn, module, _ = build(text, "k0")
    x = torch.randn(3, 5, 70, device=device) * 2 + 3
    mu_ref = x.mean((1, 2), keepdim=True)
    v_ref = ((x - mu_ref) ** 2 if stat == "var" else (x - mu_ref).abs()).mean((1, 2), keepdim=True)
    for split, rblock in ((16, 1024), (3, 16), (1, 32)):
        if form == "split":
            module.K0_SPLIT = split
        module.K0_RBLOCK = rblock
        out, mu = torch.empty_like(x), torch.empty(3, 1, 1, device=device)
        fn(x, out, mu)
        torch.testing.assert_close(out, (x - mu_ref) * torch.rsqrt(v_ref + 1e-5), atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(mu, mu_ref, atol=1e-5, rtol=1e-5)


def test_online_softmax_over_long_rows_with_masked_entries(build, device, monkeypatch):
    """The loop form's one-pass max and rescaled sum, lowered: -inf entries, a row of -inf (nan,
    as torch), a late maximum; blocks of 16 over rows of 70."""
    import akg_rag.lower.emit.reduction as reduction
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    monkeypatch.setattr(reduction, "PERSISTENT_MAX", 0)
    C, I, R = Expr.call, Expr.input, (lambda n: Expr("reduced", ref=n))
    ex = C("exp", C("sub", I("x"), R("mx")))
    region = ReductionRegion([Value("x", (5, 70), "float32")], (5, 70), (1,),
                             [Reduction("mx", "max", I("x")), Reduction("s", "sum", ex)],
                             [Output(Value("y", (5, 70), "float32"), C("div", ex, R("s"))),
                              Output(Value("lse", (5,), "float32"), C("add", R("mx"), C("log", R("s"))), "reduced")])
    text = emit_sketch(region, "k0")
    assert "mnew" in text
    fn, module, _ = build(text, "k0")
    module.K0_RBLOCK = 16
    x = torch.randn(5, 70, device=device) * 4
    x[0, :40] = float("-inf")
    x[1, ::3] = float("-inf")
    x[2] = float("-inf")
    x[3, 66] = 70.0
    y, lse = torch.empty_like(x), torch.empty(5, device=device)
    fn(x, y, lse)
    torch.testing.assert_close(y, torch.softmax(x, 1), atol=1e-5, rtol=1e-5, equal_nan=True)
    torch.testing.assert_close(lse, torch.logsumexp(x, 1), atol=1e-5, rtol=1e-5, equal_nan=True)


@pytest.mark.parametrize("forward, inputs", [
    ("return torch.bmm(t[0], t[1]) * 2.0", "[torch.randn(3, 40, 50), torch.randn(3, 50, 36)]"),
    ("return t[0].t() @ t[1]", "[torch.randn(50, 40), torch.randn(50, 36)]"),   # A not K-major
    ("return t[0] @ t[0].t()", "[torch.randn(40, 50)]"),                       # one tensor, both roles
    ("return torch.relu(t[0] @ t[1])", "[torch.randn(3, 40, 50), torch.randn(50, 36)]"),  # B shared by the batch
])
def test_a_lowered_gemm_with_a_k_tail_of_16_is_judged_correct_when_padded(write_task, forward, inputs):
    """A task's GEMM with K = 50, lowered, every operand counted as well used (the threshold at
    1 in the candidate's text): the host pads K to 64 in K-major copies and the verifier judges
    the result correct (batched and transposed operands included)."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.verify import verify
    from tests.lower.conftest import forward_task

    path = write_task(forward_task(forward, inputs))
    src, report = lower_task(path, "triton", "cuda")
    assert "= _k_padded(" in src and re.search(r"^_K_MAJOR_MIN_USES = \d+", src, re.M)
    src = re.sub(r"^_K_MAJOR_MIN_USES = \d+", "_K_MAJOR_MIN_USES = 1", src, flags=re.M)
    res = verify(path, candidate_source=src, dsl="triton", backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback


def test_a_lowered_convolution_takes_split_products_on_channels_last_copies(write_task, tmp_path, device):
    """An ungrouped 2-D convolution lowers tap by tap. With its operands well used (the threshold
    at 1) the host copies the input and the weight channels-last (dim 1 unit-stride) and the kernel
    takes three TF32 products; at the default threshold these small tensors stay as they are and
    the products are IEEE. Both give the convolution, and the verifier judges the copied form
    correct."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.task import load_module
    from akg_rag.verify import verify
    from tests.lower.conftest import forward_task

    path = write_task(forward_task("return torch.relu(self.conv(t[0]))", "[torch.randn(2, 16, 9, 11)]",
                                   "self.conv = nn.Conv2d(16, 24, 3, stride=2, padding=1)"))
    src, _ = lower_task(path, "triton", "cuda")
    assert "matmul(" not in src and "_k_major(in0, 1)" in src and "_uses(in0, 1, None, " in src
    copied = re.sub(r"^_K_MAJOR_MIN_USES = \d+", "_K_MAJOR_MIN_USES = 1", src, flags=re.M)
    cand = tmp_path / "cand.py"
    cand.write_text(copied)
    module = load_module(cand, prefix="akg_conv_cl")
    seen = []
    kernel = module.k0_kernel

    class Recorder:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.append((kwargs["DOT_X3"], tuple(args[0].stride()), tuple(args[1].stride())))
                return kernel[grid](*args, **kwargs)
            return launch

    module.k0_kernel = Recorder()
    torch.manual_seed(0)
    model = module.ModelNew().to(device)
    params = {k.rsplit(".", 1)[-1]: v for k, v in model.state_dict().items()}   # the layer's weight, bias
    x = torch.randn(2, 16, 9, 11, device=device)
    want_out = torch.relu(F.conv2d(x, params["weight"], params["bias"], stride=2, padding=1))
    for threshold, want in ((1, (1, (1584, 1, 176, 16), (144, 1, 48, 16))),
                            (10**9, (0, (1584, 99, 11, 1), (144, 9, 3, 1)))):
        module._K_MAJOR_MIN_USES = threshold
        with torch.no_grad():
            got = model(x)
            torch.testing.assert_close(got, want_out, atol=1e-4, rtol=1e-4)
        assert seen[-1] == want, (threshold, seen[-1])
        assert x.stride() == (1584, 99, 11, 1)          # the caller's tensor keeps its layout
    res = verify(path, candidate_source=copied, dsl="triton", backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback


def test_k_major_copies_a_contiguous_tensor_of_rank_four_or_more_along_any_dim(device):
    """``_k_major`` on rank >= 4 (a convolution's input and weight): a contiguous tensor comes back
    equal, with unit stride along the asked dim and the other dims in their order; a tensor that is
    not contiguous, or whose dim already has unit stride, comes back as it is."""
    import triton
    import triton.language as tl

    from akg_rag.lower.triton_host import K_MAJOR_HELPER

    ns = {"torch": torch, "triton": triton, "tl": tl}
    exec(compile(K_MAJOR_HELPER, "k_major_helper", "exec"), ns)
    k_major = ns["_k_major"]
    for shape, k, strides in (((2, 5, 3, 4), 1, (60, 1, 20, 5)), ((3, 4, 5, 6, 2), 1, (240, 1, 48, 8, 4)),
                              ((2, 3, 4, 5), 2, (60, 20, 1, 4)), ((4, 6, 7, 8), 0, (1, 224, 32, 4))):
        t = torch.randn(shape, device=device)
        c = k_major(t, k)
        assert torch.equal(c, t) and c.stride() == strides, (shape, k, c.stride())
    t = torch.randn(2, 5, 3, 4, device=device)
    not_contiguous = t.transpose(2, 3)
    assert k_major(not_contiguous, 1) is not_contiguous
    cl = k_major(t, 1)
    assert k_major(cl, 1) is cl


def test_a_row_read_again_in_a_later_pass_gets_l2_hints(build, device):
    """A program that reads x in two passes (statistics, then the output): the first pass's load of
    x keeps it in L2 (evict_last), the last pass's evicts first, the output's store streams; w,
    read once, gets no hint. CACHE_MODE 1 turns the hints off; both modes compute the same."""
    from akg_rag.lower.reuse import reuse
    from akg_rag.lower.typed import analyze

    typed = analyze(check_sketch(LAYER_NORM))
    (launch,) = typed.launches
    found = reuse(launch.body)
    assert found.reread == ["x"] and len(found.streamed) == 1
    assert sorted(found.evict.values()) == ["evict_first", "evict_last"]
    fn, module, src = build(LAYER_NORM)
    assert src.tunables["K_CACHE_MODE"] == 2
    assert src.code.count('eviction_policy="evict_last" if CACHE_HINTS') == 1
    assert src.code.count('eviction_policy="evict_first" if CACHE_HINTS') == 1
    assert src.code.count('cache_modifier=".cs" if CACHE_HINTS') == 1
    x, w = torch.randn(3, 50, device=device), torch.randn(50, device=device)
    ref = F.layer_norm(x, (50,), eps=1e-5) * w
    for mode in (2, 1):
        module.K_CACHE_MODE = mode
        y = torch.empty_like(x)
        fn(x, w, y)
        torch.testing.assert_close(y, ref, atol=1e-4, rtol=1e-4)
    module.K_CACHE_MODE = 0
    with pytest.raises(ValueError, match="K_CACHE_MODE must be 1"):
        fn(x, w, torch.empty_like(x))


def test_a_launch_that_reads_rows_again_loops_over_its_grid_points(build, device, monkeypatch):
    """Such a launch runs a grid-stride loop: launched on fewer programs than rows (GRID_MODE 2
    sizes the grid to the L2; two programs here), every row is still computed once and right.
    Mode 1 launches one program per row; an unknown mode raises."""
    fn, module, src = build(LAYER_NORM)
    assert src.tunables["K_GRID_MODE"] == 1 and "for pid_g in range(tl.program_id(0), PROGRAMS" in src.code
    x, w = torch.randn(7, 50, device=device), torch.randn(50, device=device)
    ref = F.layer_norm(x, (50,), eps=1e-5) * w
    grids = []
    real = module._l2_grid

    def two(programs, reread, mode):
        grids.append((programs, real(programs, reread, mode), [t.shape for t in reread]))
        return min(programs, 2) if mode == 2 else programs

    monkeypatch.setattr(module, "_l2_grid", two)
    for mode in (2, 1):
        module.K_GRID_MODE = mode
        y = torch.full_like(x, float("nan"))
        fn(x, w, y)
        torch.testing.assert_close(y, ref, atol=1e-4, rtol=1e-4)
    assert [g[0] for g in grids] == [7, 7] and grids[0][2] == [x.shape]   # x is read twice, w once
    module.K_GRID_MODE = 3
    with pytest.raises(ValueError, match="K_GRID_MODE must be 1"):
        fn(x, w, torch.empty_like(x))


def test_the_l2_grid_keeps_rows_in_flight_within_half_the_l2():
    """The grid of GRID_MODE 2, from the device's SMs and L2: rows of 256 KiB on 132 SMs and a
    50 MiB L2 give one program per SM (100 rows would fit; never fewer than the SMs); short rows
    keep every grid point; mode 1 and CPU tensors keep every grid point."""
    import types

    from akg_rag.lower.triton_host import L2_GRID_HELPER

    ns = {"torch": torch}
    exec(L2_GRID_HELPER, ns)
    ns["_L2_GRID"][0] = (132, 50 << 20)
    big = types.SimpleNamespace(device=torch.device("cuda", 0), numel=lambda: 32768 * 65536, element_size=lambda: 4)
    small = types.SimpleNamespace(device=torch.device("cuda", 0), numel=lambda: 4096 * 1024, element_size=lambda: 4)
    assert ns["_l2_grid"](32768, (big,), 2) == 132
    assert ns["_l2_grid"](32768, (big,), 1) == 32768
    assert ns["_l2_grid"](4096, (small,), 2) == 4096
    assert ns["_l2_grid"](4096, (torch.zeros(4),), 2) == 4096


def test_one_pass_kernels_get_no_cache_hints():
    """A single pass (a GEMM's K loop, a one-tile softmax) reads nothing twice: no hints, no
    CACHE_MODE tunable."""
    for text in (GEMM_F32, BIAS_NCHW):
        src = emit_triton(check_sketch(text), "k0")
        assert "CACHE_HINTS" not in src.code and "K0_CACHE_MODE" not in src.tunables


def test_l2_hints_compile_to_cache_policy_instructions(tmp_path):
    """Compiled for sm_90 (offline): a long-row L1 normalisation's first pass loads with an
    evict_last policy, its second with evict_first, and its stores are streaming (st.global.cs);
    with CACHE_HINTS = 0 the same kernel has none of them."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value

    C, I = Expr.call, Expr.input
    region = ReductionRegion([Value("x", (64, 40000), "float32")], (64, 40000), (1,),
                             [Reduction("s", "sum", C("abs", I("x")))],
                             [Output(Value("y", (64, 40000), "float32"), C("div", I("x"), Expr("reduced", ref="s")))])
    src = emit_triton(check_sketch(emit_sketch(region, "k0")), "k0")
    assert src.tunables["K0_CACHE_MODE"] == 2
    path = tmp_path / "k0_l1.py"
    path.write_text(src.code)
    names = set(re.findall(r"^    (\w+_stride1),", src.code, re.M))
    rb = src.tunables["K0_RBLOCK"]
    base = {"KBLOCK": 1, "RBLOCK": rb, "BLOCK_KBLOCK": 1, "BLOCK_RBLOCK": rb, "USE_INT64": False,
            "num_warps": src.tunables["K0_NUM_WARPS"]}
    on = _sm90_compile(path, "k0_kernel", names, {**base, "CACHE_HINTS": 1})["hints"]
    off = _sm90_compile(path, "k0_kernel", names, {**base, "CACHE_HINTS": 0})["hints"]
    assert on["evict_last"] > 0 and on["evict_first"] > 0 and on["streamed"] > 0, on
    assert off["evict_last"] == off["evict_first"] == off["streamed"] == 0 and off["plain_loads"] > 0, off
