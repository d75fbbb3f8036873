"""The sketch's compute vocabulary in Triton: op templates, helper functions and ``apply`` names.

Templates use ``{0}``, ``{1}`` for the (already converted) operands. An op whose best form is a
CUDA libdevice function gets a small ``@triton.jit`` helper that calls libdevice on the GPU and a
portable formula under the interpreter (``TRITON_INTERPRET=1`` has no libdevice); the generated
module defines ``_LIBDEVICE`` from the environment at import time.
"""

from __future__ import annotations

# sketch dtype -> Triton dtype of a stored element / of a computed value
STORAGE = {"f16": "tl.float16", "bf16": "tl.bfloat16", "f32": "tl.float32", "f64": "tl.float64",
           "i8": "tl.int8", "i16": "tl.int16", "i32": "tl.int32", "i64": "tl.int64", "u8": "tl.uint8",
           "bool": "tl.int1"}

# float ops: template per op (operands already in the result's float dtype)
FLOAT_UNARY = {
    "exp": "tl.exp({0})", "log": "tl.log({0})", "sqrt": "tl.sqrt({0})", "rsqrt": "tl.rsqrt({0})",
    "sigmoid": "tl.sigmoid({0})", "erf": "tl.erf({0})", "sin": "tl.sin({0})", "cos": "tl.cos({0})",
    "exp2": "tl.exp2({0})", "log2": "tl.log2({0})", "floor": "tl.floor({0})", "ceil": "tl.ceil({0})",
    "reciprocal": "1.0 / {0}",
}
# ops that go through a helper `_name(x)` (libdevice on the GPU, a formula in the interpreter)
HELPER_UNARY = ("tanh", "log1p", "expm1", "trunc", "round", "atan", "tan", "asin", "acos", "sinh",
                "cosh", "asinh", "acosh", "atanh", "erfc", "lgamma", "sign", "isnan", "isinf", "signbit")
HELPER_BINARY = ("pow", "atan2", "fmod", "remainder", "floordiv")

# neutral elements of masked reductions (padded lanes take these)
NEUTRAL = {
    ("reduce_sum", "float"): "0.0", ("reduce_sum", "int"): "0", ("reduce_mean", "float"): "0.0",
    ("reduce_mean", "int"): "0", ("reduce_prod", "float"): "1.0", ("reduce_prod", "int"): "1",
    ("reduce_max", "float"): 'float("-inf")', ("reduce_argmax", "float"): 'float("-inf")',
    ("reduce_min", "float"): 'float("inf")', ("reduce_argmin", "float"): 'float("inf")',
}
INT_MIN = {"i32": "-2147483648", "i64": "-9223372036854775808"}
INT_MAX = {"i32": "2147483647", "i64": "9223372036854775807"}

# apply("name", x, extra...): name -> (template over {x} and extra arguments {a1}, {a2}; defaults)
# max/min of a value and a bound: a NaN value stays NaN (torch's relu, clamp, hardtanh); Triton's
# default returns the other operand
_MAX = "tl.maximum({}, {}, propagate_nan=tl.PropagateNan.ALL)"
_MIN = "tl.minimum({}, {}, propagate_nan=tl.PropagateNan.ALL)"

APPLY: dict[str, tuple[str, tuple[str, ...]]] = {
    "relu": (_MAX.format("{x}", "0.0"), ()),
    "relu6": (_MIN.format(_MAX.format("{x}", "0.0"), "6.0"), ()),
    "leaky_relu": ("tl.where({x} >= 0, {x}, {x} * {a1})", ("0.01",)),
    "elu": ("tl.where({x} > 0, {x}, {a1} * (tl.exp({x}) - 1.0))", ("1.0",)),
    "selu": ("1.0507009873554805 * tl.where({x} > 0, {x}, 1.6732632423543772 * (tl.exp({x}) - 1.0))", ()),
    "gelu": ("0.5 * {x} * (1.0 + tl.erf({x} * 0.7071067811865476))", ()),
    # 0.5 * x * (1 + tanh(u)) as x * sigmoid(2u): see akg_rag.lower.pointwise._one_plus_tanh
    "gelu_tanh": ("{x} * tl.sigmoid(1.5957691216057308 * ({x} + 0.044715 * {x} * {x} * {x}))", ()),
    "silu": ("{x} * tl.sigmoid({x})", ()),
    "mish": ("{x} * _tanh(_softplus({x}))", ()),
    "softplus": ("_softplus({x})", ()),
    "softsign": ("{x} / (1.0 + tl.abs({x}))", ()),
    "hardsigmoid": (_MIN.format(_MAX.format("{x} / 6.0 + 0.5", "0.0"), "1.0"), ()),
    "hardswish": ("{x} * " + _MIN.format(_MAX.format("{x} + 3.0", "0.0"), "6.0") + " / 6.0", ()),
    "hardtanh": (_MIN.format(_MAX.format("{x}", "{a1}"), "{a2}"), ("-1.0", "1.0")),
    "clamp": (_MIN.format(_MAX.format("{x}", "{a1}"), "{a2}"), ("float(\"-inf\")", "float(\"inf\")")),
    "logsigmoid": ("-_softplus(-{x})", ()),
    "tanhshrink": ("{x} - _tanh({x})", ()),
    "softshrink": ("tl.where({x} > {a1}, {x} - {a1}, tl.where({x} < -{a1}, {x} + {a1}, 0.0))", ("0.5",)),
    "hardshrink": ("tl.where(tl.abs({x}) > {a1}, {x}, 0.0)", ("0.5",)),
}

_PRELUDE = '''\
# libdevice exists only on the GPU; the interpreter (TRITON_INTERPRET=1) takes portable formulas
_LIBDEVICE = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") not in ("1", "true", "True"))
'''

# helper name -> (source, helpers it calls)
HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {}


def _lib(name: str, call: str, fallback: str, args: str = "x", needs: tuple[str, ...] = ()) -> None:
    HELPERS[name] = (f'''@triton.jit
def _{name}({args}):
    if _LIBDEVICE:
        return libdevice.{call}({args})
    else:
        {fallback}
''', needs)


def _plain(name: str, body: str, args: str = "x", needs: tuple[str, ...] = ()) -> None:
    HELPERS[name] = (f"@triton.jit\ndef _{name}({args}):\n{body}", needs)


_lib("tanh", "tanh", "return 2.0 * tl.sigmoid(2.0 * x) - 1.0")
_lib("log1p", "log1p", "return tl.where(tl.abs(x) < 1e-4, x - 0.5 * x * x, tl.log(1.0 + x))")
_lib("expm1", "expm1", "return tl.where(tl.abs(x) < 1e-5, x + 0.5 * x * x, tl.exp(x) - 1.0)")
_lib("trunc", "trunc", "return tl.where(x < 0, tl.ceil(x), tl.floor(x))")
_lib("round", "nearbyint", """a = tl.abs(x)
        r = tl.floor(a)
        d = a - r  # exact: no rounding of a + 0.5 (0.49999997 -> 1, 2**23 + 1 -> 2**23 + 2)
        # halfway cases round to even, as torch.round does
        r = tl.where((d > 0.5) | ((d == 0.5) & (r - 2.0 * tl.floor(r * 0.5) != 0.0)), r + 1.0, r)
        # the sign back, zero's too (round(-0.3) is -0.0; Triton's -r is 0 - r, +0.0 at r = 0)
        return tl.where(x < 0, r * -1.0, tl.where(x == 0.0, x, r))""")
_lib("atan", "atan", """a = tl.abs(x)
        big = a > 1.0
        t = tl.where(big, 1.0 / tl.maximum(a, 1e-30), a)
        t = t / (1.0 + tl.sqrt(1.0 + t * t))  # atan(t) = 2 atan(t / (1 + sqrt(1 + t^2))), t <= 0.42
        t2 = t * t
        p = t * (1.0 - t2 * (1.0 / 3.0 - t2 * (1.0 / 5.0 - t2 * (1.0 / 7.0 - t2 * (1.0 / 9.0 - t2 * (
            1.0 / 11.0 - t2 * (1.0 / 13.0 - t2 * (1.0 / 15.0 - t2 * (1.0 / 17.0 - t2 / 19.0)))))))))
        r = 2.0 * p
        r = tl.where(big, 1.5707963267948966 - r, r)
        return tl.where(x < 0, -r, r)""")
_lib("tan", "tan", "return tl.sin(x) / tl.cos(x)")
_lib("asin", "asin", "return _atan(x / tl.sqrt(tl.maximum(1.0 - x * x, 0.0)))", needs=("atan",))
_lib("acos", "acos", "return 1.5707963267948966 - _asin(x)", needs=("asin",))
_lib("sinh", "sinh", "return 0.5 * (tl.exp(x) - tl.exp(-x))")
_lib("cosh", "cosh", "return 0.5 * (tl.exp(x) + tl.exp(-x))")
_lib("asinh", "asinh", """a = tl.abs(x)
        r = tl.log(a + tl.sqrt(a * a + 1.0))
        return tl.where(x < 0, -r, r)""")
_lib("acosh", "acosh", "return tl.log(x + tl.sqrt(x * x - 1.0))")
_lib("atanh", "atanh", "return 0.5 * tl.log((1.0 + x) / (1.0 - x))")
_lib("erfc", "erfc", "return 1.0 - tl.erf(x)")
_lib("lgamma", "lgamma", """# Lanczos (g = 7, n = 9) for x >= 0.5, reflection below
        z = tl.where(x < 0.5, 1.0 - x, x) - 1.0
        s = 0.99999999999980993 + 676.5203681218851 / (z + 1.0) - 1259.1392167224028 / (z + 2.0)
        s += 771.32342877765313 / (z + 3.0) - 176.61502916214059 / (z + 4.0)
        s += 12.507343278686905 / (z + 5.0) - 0.13857109526572012 / (z + 6.0)
        s += 9.9843695780195716e-6 / (z + 7.0) + 1.5056327351493116e-7 / (z + 8.0)
        t = z + 7.5
        lg = 0.9189385332046727 + (z + 0.5) * tl.log(t) - t + tl.log(s)
        refl = 1.1447298858494002 - tl.log(tl.abs(tl.sin(3.141592653589793 * x))) - lg
        return tl.where(x < 0.5, refl, lg)""")
_lib("pow", "pow", """r = tl.exp2(y * tl.log2(tl.abs(x)))
        # nested selects, not ``&``: y may be a Python float, whose comparisons the interpreter
        # cannot and with a tensor of booleans
        odd = (y - 2.0 * tl.floor(y * 0.5)) == 1.0
        r = tl.where(x < 0, tl.where(odd, -r, r), r)
        r = tl.where(x < 0, tl.where(tl.floor(y) != y, float("nan"), r), r)
        return tl.where(y == 0, 1.0, r)""", args="x, y")
_lib("atan2", "atan2", """r = _atan(y / x)
        r = tl.where(x < 0, tl.where(y < 0, r - 3.141592653589793, r + 3.141592653589793), r)
        return tl.where(x == 0, tl.where(y > 0, 1.5707963267948966,
                                         tl.where(y < 0, -1.5707963267948966, 0.0)), r)""",
     args="y, x", needs=("atan",))
_lib("fmod", "fmod", "return x - y * _trunc(x / y)", args="x, y", needs=("trunc",))
_plain("remainder", """    # the sign of the divisor, as torch.remainder (floating and integer operands)
    r = x % y
    return tl.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)
""", args="x, y")
_plain("floordiv", """    # floor division, as torch.floor_divide (integers: correct the truncating quotient)
    q = x // y
    return tl.where((q * y != x) & ((x < 0) != (y < 0)), q - 1, q)
""", args="x, y")
_plain("fdiv_floor", "    return tl.floor(x / y)\n", args="x, y")
_plain("sign", "    return tl.where(x > 0, 1, 0).to(x.dtype) - tl.where(x < 0, 1, 0).to(x.dtype)\n")
_plain("isnan", "    return x != x\n")
_plain("isinf", "    return tl.abs(x) == float(\"inf\")\n")
_plain("signbit", "    # the sign bit itself: -0.0 and a negative NaN too\n"
       "    if x.dtype == tl.float64:\n"
       "        return x.to(tl.int64, bitcast=True) < 0\n"
       "    return x.to(tl.int32, bitcast=True) < 0\n")
_plain("softplus", "    # torch.nn.Softplus with threshold 20: linear above it\n"
       "    return tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(tl.minimum(x, 20.0))))\n")
_plain("dot_bf16", """    # bfloat16 operands on the tensor cores, f32 accumulation; the interpreter (TRITON_INTERPRET=1,
    # triton 3.7) returns garbage for a bfloat16 dot, so there the same values go in as f32 (exact:
    # a bfloat16 converts to f32 without rounding, and the product of two fits in an f32)
    if _LIBDEVICE:
        return tl.dot(x.to(tl.bfloat16), y.to(tl.bfloat16), acc)
    else:
        return tl.dot(x.to(tl.float32), y.to(tl.float32), acc)
""", args="x, y, acc")
_plain("bf16", """    # to bfloat16, rounding to nearest even as the GPU's conversion does; the interpreter
    # (TRITON_INTERPRET=1, triton 3.7) truncates, so there the bits are rounded first
    if _LIBDEVICE:
        return x.to(tl.bfloat16)
    else:
        b = x.to(tl.float32).to(tl.uint32, bitcast=True)
        b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
        return tl.where(x != x, x, b.to(tl.float32, bitcast=True)).to(tl.bfloat16)
""")
_plain("prod_combine", "    return x * y\n", args="x, y")
_plain("max_combine", "    return tl.maximum(x, y)\n", args="x, y")
# float max/min reductions: a NaN anywhere is the result, as in torch (tl.max / tl.min drop NaNs)
_plain("max_nan", "    return tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)\n", args="x, y")
_plain("min_nan", "    return tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)\n", args="x, y")
# float argmax / argmin: the first extreme, or the first NaN where the row holds one (the max is
# NaN exactly then, and no number equals it), as torch; tl.argmax's combine skips NaNs
for _k in ("max", "min"):
    _plain(f"arg{_k}_nan", f"""    best = tl.reduce(x, AXIS, _{_k}_nan, keep_dims=True)
    hit = ((x == best) | (x != x)).to(tl.int32)
    return tl.argmax(hit, axis=AXIS, tie_break_left=True, keep_dims=KEEP)
""", args="x, AXIS: tl.constexpr, KEEP: tl.constexpr", needs=(f"{_k}_nan",))


def helper_sources(used: set[str]) -> str:
    """Source of the helpers in ``used`` and of those they call, in a stable order."""
    todo, seen = sorted(used), set()
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo.extend(HELPERS[h][1])
    out = [HELPERS[h][0] for h in sorted(seen)]
    lib = any("_LIBDEVICE" in text for text in out)
    return (_PRELUDE + "\n\n" if lib else "") + "\n\n".join(out)


def helpers_needing_libdevice(used: set[str]) -> bool:
    """Whether the module must import libdevice (and os) for these helpers."""
    return "_LIBDEVICE" in helper_sources(used)
