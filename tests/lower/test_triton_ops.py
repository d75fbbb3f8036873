"""Every compute op of the sketch vocabulary through the Triton backend, against torch.

One small kernel per op: a row tile of a [3, 19] input (19 pads to 32), so each op also meets
padded lanes. Inputs are drawn inside each op's domain.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from akg_rag.lower.triton_ops import APPLY
from akg_rag.sketch import vocab

UNARY_SKETCH = """
sketch op_{name} {{
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, N]: {out} out
  @llm_hint("parallel", "core")
  for m in range(M):
    t = alloc([N], f32)
    load(x[m, 0:N] -> t)
    r = {expr}
    store(r -> y[m, 0:N])
}}
"""

BINARY_SKETCH = """
sketch op_{name} {{
  symbols: M, N
  tensors: x[M, N]: f32 in; z[M, N]: f32 in; y[M, N]: {out} out
  @llm_hint("parallel", "core")
  for m in range(M):
    t = alloc([N], f32)
    load(x[m, 0:N] -> t)
    u = alloc([N], f32)
    load(z[m, 0:N] -> u)
    r = {expr}
    store(r -> y[m, 0:N])
}}
"""

# op -> (torch function, input range (lo, hi), output dtype)
UNARY = {
    "exp": (torch.exp, (-3, 3)), "log": (torch.log, (0.1, 5)), "sqrt": (torch.sqrt, (0, 5)),
    "rsqrt": (torch.rsqrt, (0.1, 5)), "tanh": (torch.tanh, (-4, 4)), "sigmoid": (torch.sigmoid, (-6, 6)),
    "abs": (torch.abs, (-3, 3)), "neg": (torch.neg, (-3, 3)), "erf": (torch.erf, (-3, 3)),
    "log1p": (torch.log1p, (-0.5, 3)), "expm1": (torch.expm1, (-2, 2)),
    "reciprocal": (torch.reciprocal, (0.5, 3)), "floor": (torch.floor, (-3, 3)),
    "ceil": (torch.ceil, (-3, 3)), "sin": (torch.sin, (-3, 3)), "cos": (torch.cos, (-3, 3)),
    "sign": (torch.sign, (-3, 3)), "trunc": (torch.trunc, (-3, 3)), "round": (torch.round, (-4, 4)),
    "exp2": (torch.exp2, (-3, 3)), "log2": (torch.log2, (0.1, 5)), "atan": (torch.atan, (-5, 5)),
    "tan": (torch.tan, (-1.2, 1.2)), "asin": (torch.asin, (-0.95, 0.95)), "acos": (torch.acos, (-0.95, 0.95)),
    "sinh": (torch.sinh, (-2, 2)), "cosh": (torch.cosh, (-2, 2)), "asinh": (torch.asinh, (-3, 3)),
    "acosh": (torch.acosh, (1.1, 4)), "atanh": (torch.atanh, (-0.9, 0.9)), "erfc": (torch.erfc, (-2, 2)),
    "lgamma": (torch.lgamma, (0.2, 6)),
}
BOOL_UNARY = {"isnan": torch.isnan, "isinf": torch.isinf, "signbit": torch.signbit, "logical_not": torch.logical_not}
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "max": torch.maximum,
    "min": torch.minimum, "pow": torch.pow, "fmod": torch.fmod, "remainder": torch.remainder,
    "atan2": torch.atan2, "floordiv": torch.floor_divide,
}
BOOL_BINARY = {"gt": torch.gt, "ge": torch.ge, "lt": torch.lt, "le": torch.le, "eq": torch.eq, "ne": torch.ne,
               "logical_and": torch.logical_and, "logical_or": torch.logical_or}


BITWISE = {"bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor,
           "bitwise_not": torch.bitwise_not}

BITWISE_SKETCH = """
sketch op_{name} {{
  symbols: M, N
  tensors: x[M, N]: {dt} in; z[M, N]: {dt} in; y[M, N]: {dt} out
  @llm_hint("parallel", "core")
  for m in range(M):
    t = alloc([N], {dt})
    load(x[m, 0:N] -> t)
    u = alloc([N], {dt})
    load(z[m, 0:N] -> u)
    r = {expr}
    store(r -> y[m, 0:N])
}}
"""


def test_the_tables_cover_the_vocabulary():
    covered = (set(UNARY) | set(BOOL_UNARY) | set(BINARY) | set(BOOL_BINARY) | set(BITWISE)
               | {"transpose", "matmul"})
    assert covered == set(vocab.UNARY_OPS) | set(vocab.BINARY_OPS)


@pytest.mark.parametrize("dt", ["i32", "i64", "bool"])
@pytest.mark.parametrize("op", sorted(BITWISE))
def test_bitwise_op(build, device, op, dt):
    """The bits of integers, negative ones too (two's complement, as torch); of bools, the logical
    op (``~`` of a bool is ``not``, not -2)."""
    g = torch.Generator().manual_seed(1)
    tdt = {"i32": torch.int32, "i64": torch.int64, "bool": torch.bool}[dt]
    x, z = (torch.randint(-40, 40, (3, 19), generator=g) for _ in range(2))
    x, z = (v.to(tdt) if dt != "bool" else v > 0 for v in (x, z))
    x, z = x.to(device), z.to(device)
    expr = f"{op}(t)" if op == "bitwise_not" else f"{op}(t, u)"
    fn, _, _ = build(BITWISE_SKETCH.format(name=op, dt=dt, expr=expr), f"bits_{op}_{dt}")
    y = torch.empty_like(x)
    fn(x, z, y)
    assert torch.equal(y, BITWISE[op](x) if op == "bitwise_not" else BITWISE[op](x, z))


def test_bitwise_op_of_floats_is_a_sketch_error(build):
    from akg_rag.errors import SketchError

    with pytest.raises(SketchError, match="bitwise_and takes integers or bools, not f32"):
        build(BINARY_SKETCH.format(name="fbits", out="f32", expr="bitwise_and(t, u)"), "fbits")


def test_bitwise_ops_bind_as_python_does(build, device):
    """``or(xor(a, and(b, c)), 5)`` printed with the fewest parentheses still means that."""
    g = torch.Generator().manual_seed(2)
    x, z = (torch.randint(-40, 40, (3, 19), generator=g, dtype=torch.int32).to(device) for _ in range(2))
    expr = "bitwise_or(bitwise_xor(t, bitwise_and(u, add(t, 3))), bitwise_not(5))"
    fn, _, _ = build(BITWISE_SKETCH.format(name="prec", dt="i32", expr=expr), "bits_prec")
    y = torch.empty_like(x)
    fn(x, z, y)
    assert torch.equal(y, (x ^ (z & (x + 3))) | ~torch.tensor(5, dtype=torch.int32))


@pytest.mark.parametrize("name, expr, ref", [
    ("xor", "ne(gt(t, 0.0), gt(u, 0.0))", lambda x, z: (x > 0) != (z > 0)),      # logical_xor
    ("eq", "eq(gt(t, 0.0), lt(u, 0.0))", lambda x, z: (x > 0) == (z < 0)),
    ("nest", "eq(gt(t, 0.0), ne(lt(u, 0.0), gt(t, 0.5)))", lambda x, z: (x > 0) == ((z < 0) != (x > 0.5))),
])
def test_comparisons_of_comparisons_do_not_chain(build, device, name, expr, ref):
    """Python chains comparisons (``a > 0 != b`` is ``a > 0 and 0 != b``): a comparison operand of
    another comparison keeps its parentheses on either side (the left one had none)."""
    g = torch.Generator().manual_seed(3)
    x, z = (torch.randn(3, 19, generator=g).to(device) for _ in range(2))
    fn, _, _ = build(BINARY_SKETCH.format(name="cmpcmp", out="bool", expr=expr), f"cmpcmp_{name}")
    y = torch.empty(3, 19, dtype=torch.bool, device=device)
    fn(x, z, y)
    assert torch.equal(y, ref(x, z))


def _input(device, lo, hi, shape=(3, 19)):
    g = torch.Generator().manual_seed(0)
    return (torch.rand(shape, generator=g) * (hi - lo) + lo).to(device)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_op(build, device, op):
    fn_ref, (lo, hi) = UNARY[op]
    x = _input(device, lo, hi)
    if op == "round":
        x[0, :4] = torch.tensor([0.5, 1.5, 2.5, -0.5])      # halfway cases round to even
        # zero keeps its sign; no rounding of x + 0.5; integers past 2**23 stay as they are
        x[1, :6] = torch.tensor([-0.3, -0.0, 0.49999997, -0.49999997, 8388609.0, 16777215.0])
    fn, _, _ = build(UNARY_SKETCH.format(name=op, out="f32", expr=f"{op}(t)"), f"u_{op}")
    y = torch.empty_like(x)
    fn(x, y)
    torch.testing.assert_close(y, fn_ref(x), atol=1e-5, rtol=1e-4)
    if op == "neg":
        x[0, :2] = torch.tensor([0.0, -0.0])                # zero's sign flips too
        fn(x, y)
    if op in ("round", "neg"):
        assert torch.equal(y, fn_ref(x)) and torch.equal(torch.signbit(y), torch.signbit(fn_ref(x)))


@pytest.mark.parametrize("op", sorted(BOOL_UNARY))
def test_bool_unary_op_into_a_bool_tensor(build, device, op):
    x = _input(device, -2, 2)
    x[0, 0], x[1, 1], x[2, 2] = float("nan"), float("inf"), 0.0
    x[0, 1], x[1, 2], x[2, 3] = -0.0, -float("nan"), -float("inf")     # signs a comparison misses
    fn, _, _ = build(UNARY_SKETCH.format(name=op, out="bool", expr=f"{op}(t)"), f"b_{op}")
    y = torch.empty(x.shape, dtype=torch.bool, device=device)
    fn(x, y)
    assert torch.equal(y, BOOL_UNARY[op](x))


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_op(build, device, op):
    x, z = _input(device, -3, 3), _input(device, 0.5, 2.5).flip(1)
    if op == "pow":
        x = x.abs() + 0.1
    z = torch.where(torch.arange(19, device=device) % 2 == 0, z, -z)   # both signs of divisors
    fn, _, _ = build(BINARY_SKETCH.format(name=op, out="f32", expr=f"{op}(t, u)"), f"bin_{op}")
    y = torch.empty_like(x)
    fn(x, z, y)
    torch.testing.assert_close(y, BINARY[op](x, z), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("exponent", [3.0, 1 / 3, 0.5, -2.0])
def test_pow_by_a_literal_exponent(build, device, exponent):
    """A literal exponent reaches the pow helper as a Python float (a p-norm's 1/p): negative
    bases give torch's signs and NaNs, under the interpreter too."""
    x = _input(device, -3, 3)
    fn, _, _ = build(UNARY_SKETCH.format(name="powc", out="f32", expr=f"pow(t, {exponent!r})"), "powc")
    y = torch.empty_like(x)
    fn(x, y)
    torch.testing.assert_close(y, torch.pow(x, exponent), atol=1e-5, rtol=1e-4, equal_nan=True)


@pytest.mark.parametrize("op", sorted(BOOL_BINARY))
def test_comparison_and_logical_op(build, device, op):
    x, z = _input(device, -2, 2).round(), _input(device, -2, 2).flip(1).round()
    fn, _, _ = build(BINARY_SKETCH.format(name=op, out="bool", expr=f"{op}(t, u)"), f"cmp_{op}")
    y = torch.empty(x.shape, dtype=torch.bool, device=device)
    fn(x, z, y)
    assert torch.equal(y, BOOL_BINARY[op](x, z))


REDUCE = {"reduce_sum": lambda x: x.sum(1), "reduce_max": lambda x: x.amax(1),
          "reduce_min": lambda x: x.amin(1), "reduce_mean": lambda x: x.mean(1),
          "reduce_prod": lambda x: x.prod(1), "reduce_argmax": lambda x: x.argmax(1).float(),
          "reduce_argmin": lambda x: x.argmin(1).float()}
SCAN = {"scan_sum": lambda x: x.cumsum(1), "scan_prod": lambda x: x.cumprod(1),
        "scan_max": lambda x: x.cummax(1).values}

ROW_SKETCH = """
sketch red_{name} {{
  symbols: M, N
  tensors: x[M, N]: f32 in; y[M, {width}]: f32 out
  @llm_hint("parallel", "core")
  for m in range(M):
    t = alloc([N], f32)
    load(x[m, 0:N] -> t)
    r = {name}(exp(t), axis=0)
    store(r -> y[m, {index}])
}}
"""


@pytest.mark.parametrize("op", sorted(REDUCE) + sorted(SCAN))
def test_reductions_and_scans_ignore_padded_lanes(build, device, op):
    # exp(t) of the padded lanes would be exp(0) = 1: a reduction that read them would be off
    x = _input(device, -1.5, 0.5)
    scan = op in SCAN
    text = ROW_SKETCH.format(name=op, width="N" if scan else "1", index="0:N" if scan else "0:1")
    fn, _, _ = build(text, f"r_{op}")
    y = torch.empty(3, 19 if scan else 1, device=device)
    fn(x, y)
    ref = (SCAN if scan else REDUCE)[op](x.exp())
    torch.testing.assert_close(y, ref.reshape(y.shape), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("expr,out", [("t", "bf16"), ("cast(t, bf16)", "f32")])
def test_bfloat16_rounds_to_nearest_even(build, device, expr, out):
    """A store into a bf16 tensor and a cast through bf16 round to nearest even, as torch and the
    GPU do; the interpreter's own conversion truncates (half of random values came out one bf16
    step toward zero)."""
    x = _input(device, -3, 3)
    x[0, :4] = torch.tensor([float("nan"), float("inf"), -float("inf"), 3.0e38])
    fn, _, _ = build(UNARY_SKETCH.format(name="tobf16", out=out, expr=expr), "tobf16")
    y = torch.empty(x.shape, device=device, dtype=torch.bfloat16 if out == "bf16" else torch.float32)
    fn(x, y)
    want = x.bfloat16() if out == "bf16" else x.bfloat16().float()
    assert torch.equal(y.isnan(), want.isnan())
    assert torch.equal(y[~y.isnan()], want[~want.isnan()])


@pytest.mark.parametrize("op", ["reduce_max", "reduce_min", "scan_max"])
def test_max_and_min_reductions_keep_a_nan(build, device, op):
    """torch.amax / amin / cummax return NaN where the row holds one; tl.max drops it."""
    x = _input(device, -1.5, 0.5)
    x[1, 7] = float("nan")
    scan = op in SCAN
    text = ROW_SKETCH.format(name=op, width="N" if scan else "1", index="0:N" if scan else "0:1")
    fn, _, _ = build(text, f"nan_{op}")
    y = torch.empty(3, 19 if scan else 1, device=device)
    fn(x, y)
    ref = (SCAN if scan else REDUCE)[op](x.exp())
    torch.testing.assert_close(y, ref.reshape(y.shape), atol=1e-5, rtol=1e-4, equal_nan=True)
    assert y[1].isnan().any() and not y[0].isnan().any()


@pytest.mark.parametrize("op", ["reduce_argmax", "reduce_argmin"])
def test_argmax_and_argmin_give_the_first_nan(build, device, op):
    """torch.argmax / argmin point at a row's first NaN; tl.argmax's combine skips NaNs on the GPU
    (the interpreter's numpy argmax does not, hence the text check besides the values)."""
    x = _input(device, -1.5, 0.5)
    x[1, 7] = x[1, 12] = float("nan")
    x[2, 18] = float("nan")
    fn, _, src = build(ROW_SKETCH.format(name=op, width="1", index="0:1"), f"nan_{op}")
    assert f"_{op[7:]}_nan(" in src.code and f"tl.{op[7:]}(t" not in src.code
    y = torch.empty(3, 1, device=device)
    fn(x, y)
    assert y.flatten().tolist() == REDUCE[op](x.exp()).tolist()
    assert y[1, 0] == 7 and y[2, 0] == 18


@pytest.mark.parametrize("expr,ref", [
    ("max(t, u)", torch.maximum), ("min(t, u)", torch.minimum),
    ('apply("relu", t)', lambda a, b: torch.relu(a)), ('apply("hardtanh", t)', lambda a, b: F.hardtanh(a)),
    ('apply("clamp", t, -0.5, 0.5)', lambda a, b: a.clamp(-0.5, 0.5)),
])
def test_elementwise_max_and_min_keep_a_nan(build, device, expr, ref):
    """NaN in, NaN out, as torch: the generated code asks for NaN propagation (the GPU's default
    max returns the other operand; the interpreter propagates either way, hence the text check)."""
    x, z = _input(device, -3, 3), _input(device, -3, 3).flip(1)
    x[0, 3], z[2, 5] = float("nan"), float("nan")
    fn, _, src = build(BINARY_SKETCH.format(name="nanmax", out="f32", expr=expr), "nanmax")
    assert "propagate_nan=tl.PropagateNan.ALL" in src.code
    assert "tl.maximum(t, u)" not in src.code and "tl.minimum(t, u)" not in src.code
    y = torch.empty_like(x)
    fn(x, z, y)
    torch.testing.assert_close(y, ref(x, z), atol=1e-6, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(APPLY))
def test_apply_functions(build, device, name):
    x = _input(device, -4, 4)
    fn, _, _ = build(UNARY_SKETCH.format(name=name, out="f32", expr=f'apply("{name}", t)'), f"a_{name}")
    y = torch.empty_like(x)
    fn(x, y)
    ref = {"relu": F.relu, "relu6": F.relu6, "leaky_relu": F.leaky_relu, "elu": F.elu, "selu": F.selu,
           "gelu": F.gelu, "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"), "silu": F.silu,
           "mish": F.mish, "softplus": F.softplus, "softsign": F.softsign, "hardsigmoid": F.hardsigmoid,
           "hardswish": F.hardswish, "hardtanh": F.hardtanh, "clamp": lambda v: v,
           "logsigmoid": F.logsigmoid, "tanhshrink": F.tanhshrink, "softshrink": F.softshrink,
           "hardshrink": F.hardshrink}[name]
    torch.testing.assert_close(y, ref(x), atol=1e-5, rtol=1e-4)


INT_SKETCH = """
sketch ints {
  symbols: N
  tensors: a[N]: i32 in; b[N]: u8 in; y[N]: i64 out; f[N]: f16 out
  @llm_hint("parallel", "grid")
  for i in range(0, N, 8):
    ta = alloc([8], i32)
    load(a[i:i + 8] -> ta)
    tb = alloc([8], i32)
    load(b[i:i + 8] -> tb)
    s = ta * 3 + tb // 2 - ta % 5
    store(s -> y[i:i + 8])
    h = div(cast(s, f32), 4)
    store(h -> f[i:i + 8])
}
"""


def test_integer_tensors_index_arithmetic_and_casts(build, device):
    a = torch.randint(0, 100, (21,), dtype=torch.int32, device=device)
    b = torch.randint(0, 255, (21,), dtype=torch.uint8, device=device)
    y = torch.empty(21, dtype=torch.int64, device=device)
    f = torch.empty(21, dtype=torch.float16, device=device)
    fn, _, _ = build(INT_SKETCH, "ints")
    fn(a, b, y, f)
    ref = a.long() * 3 + b.long() // 2 - a.long() % 5
    assert torch.equal(y, ref)
    torch.testing.assert_close(f, (ref.float() / 4).half())
