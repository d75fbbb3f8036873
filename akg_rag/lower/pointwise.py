"""Aten pointwise ops as ``Expr`` trees over the sketch's compute ops.

:func:`pointwise_expr` maps one aten (or prims) call whose tensor arguments are already ``Expr``
trees to the ``Expr`` of its result, or returns None when the op is not elementwise. Casts are
explicit: a bool or integer operand of a floating result is cast first, and an integer result of
a floating computation is cast back, so an emitter never has to guess a promotion rule.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from akg_rag.lower.region import Expr

_FLOAT = ("float16", "bfloat16", "float32", "float64")
_WIDTH = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}

# aten/prims name -> sketch unary op
_UNARY = {
    "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "log1p": "log1p", "expm1": "expm1",
    "sqrt": "sqrt", "rsqrt": "rsqrt", "tanh": "tanh", "sigmoid": "sigmoid", "abs": "abs",
    "neg": "neg", "erf": "erf", "erfc": "erfc", "reciprocal": "reciprocal", "floor": "floor",
    "ceil": "ceil", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
    "atan": "atan", "sinh": "sinh", "cosh": "cosh", "asinh": "asinh", "acosh": "acosh",
    "atanh": "atanh", "sign": "sign", "sgn": "sign", "trunc": "trunc", "round": "round",
    "isnan": "isnan", "isinf": "isinf", "signbit": "signbit", "logical_not": "logical_not", "lgamma": "lgamma",
    "fix": "trunc",
}
# aten/prims name -> sketch binary op
_BINARY = {
    "mul": "mul", "div": "div", "true_divide": "div", "maximum": "max", "minimum": "min",
    "fmax": "max", "fmin": "min", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le", "eq": "eq",
    "ne": "ne", "fmod": "fmod", "remainder": "remainder", "atan2": "atan2",
    "logical_and": "logical_and", "logical_or": "logical_or", "pow": "pow",
    "floor_divide": "floordiv", "clamp_min": "max", "clamp_max": "min", "max": "max", "min": "min",
}
_COMPARE = frozenset({"gt", "ge", "lt", "le", "eq", "ne", "logical_and", "logical_or", "isnan",
                      "isinf", "signbit", "logical_not"})


def _is_float(dtype: str | None) -> bool:
    return dtype in _FLOAT


def _const(x: Any, dtype: str | None = None) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool):
        return Expr.const(x, "bool")
    if isinstance(x, int):
        return Expr.const(float(x)) if _is_float(dtype) else Expr.const(x, dtype or "int64")
    return Expr.const(float(x))


def _to(x: Expr, have: str | None, want: str) -> Expr:
    """``x`` as ``want``: a cast where the dtype class changes (bool/int -> float, float -> int)."""
    if have == want or have is None:
        return x
    if _is_float(have) and _is_float(want):
        # compute runs in f32 (f64 for f64): a widening is free; a narrowing the task asks for
        # (``.to(torch.bfloat16)`` between two computations) rounds there, as eager does
        if _WIDTH[want] > _WIDTH[have] or x.op == "const":
            return x
        return Expr.call("cast", x, dtype=want)
    if x.op == "const":
        v = x.value
        if want == "bool":
            return Expr.const(bool(v), "bool")
        if _is_float(want):
            return Expr.const(float(v))
        return Expr.const(int(v), want)
    return Expr.call("cast", x, dtype=want)


def _pow(base: Expr, exp: Any) -> Expr:
    """x ** c with the common exponents spelled as cheaper, sign-correct ops."""
    if isinstance(exp, (int, float)) and not isinstance(exp, bool):
        e = float(exp)
        if e == 1.0:
            return base
        if e == 2.0:
            return Expr.call("mul", base, base)
        if e == 3.0:
            return Expr.call("mul", Expr.call("mul", base, base), base)
        if e == 0.5:
            return Expr.call("sqrt", base)
        if e == -0.5:
            return Expr.call("rsqrt", base)
        if e == -1.0:
            return Expr.call("reciprocal", base)
        if e == 0.0:
            return Expr.const(1.0)
    return Expr.call("pow", base, _const(exp))


def _promoted(dtypes: list[str]) -> str:
    """torch's promotion of tensor dtypes (``int32`` and ``int64`` -> ``int64``)."""
    out = getattr(torch, dtypes[0])
    for d in dtypes[1:]:
        out = torch.promote_types(out, getattr(torch, d))
    return str(out).removeprefix("torch.")


# integer results narrower than int64 whose op can leave the type's range: torch wraps them at
# once, a backend may compute in a wider type (Triton i32 for int8/int16/uint8; C++ and the
# interpreter int64 for every integer), so the result is cast through its own type -- a no-op
# where the compute type is the stored one
_NARROW_INT = frozenset({"int8", "int16", "uint8", "int32"})
_WRAPPING = frozenset({"add", "sub", "rsub", "mul", "neg", "abs", "pow", "floor_divide", "div",
                       "__lshift__", "bitwise_left_shift", "square"})


def pointwise_expr(name: str, args: list[Any], kwargs: dict, in_dtypes: list[str | None],
                   out_dtype: str) -> Expr | None:
    """The ``Expr`` of ``name(*args, **kwargs)``; tensor args are Exprs, ``in_dtypes`` their dtypes
    (None for Python scalars). None when ``name`` is not an elementwise op handled here."""
    r = _pointwise(name, args, kwargs, in_dtypes, out_dtype)
    if r is None or r.op in ("cast", "const"):
        return r
    if out_dtype in _NARROW_INT and name in _WRAPPING:
        r = Expr.call("cast", r, dtype=out_dtype)
    elif out_dtype == "bool" and name in _WRAPPING and r.op not in _COMPARE:
        # arithmetic on bools gives bools: True + True is True (computed as 2), as torch's
        r = Expr.call("ne", r, Expr.const(0, "int32"))
    return r


def _pointwise(name: str, args: list[Any], kwargs: dict, in_dtypes: list[str | None],
               out_dtype: str) -> Expr | None:
    fn = _SPECIAL.get(name)
    if name == "div" and kwargs.get("rounding_mode", args[2] if len(args) > 2 else None):
        fn = _div_mode
    # the dtype the op computes in: the result's when floating or when the op is integer or bool
    # arithmetic (bool + int32 adds int32s); for a comparison (a bool result) the operands'
    # promoted dtype, floating ones first (a float tensor against an int64 one compares floats)
    floats = [d for d in in_dtypes if _is_float(d)]
    known = [d for d in in_dtypes if d is not None]
    if _is_float(out_dtype) or out_dtype != "bool" or not known:
        work = out_dtype
    else:
        work = _promoted(floats or known)

    def conv(i: int) -> Expr:
        a = args[i]
        if not isinstance(a, Expr):
            return _const(a, work)
        return _to(a, in_dtypes[i], work)

    if fn is not None:
        return fn(args, kwargs, in_dtypes, out_dtype, conv)
    if name in _UNARY:
        op = _UNARY[name]
        x = conv(0)
        if op in ("floor", "ceil", "trunc", "round") and not _is_float(in_dtypes[0]):
            return args[0]
        r = Expr.call(op, x)
        return r if op in _COMPARE else _to(r, work, out_dtype)
    if name in _BINARY:
        op = _BINARY[name]
        if op == "pow" and not isinstance(args[1], Expr):
            return _to(_pow(conv(0), args[1]), work, out_dtype)
        if op == "div" and not _is_float(out_dtype):
            op = "floordiv"
        r = Expr.call(op, conv(0), conv(1))
        return r if op in _COMPARE else _to(r, work, out_dtype)
    return None


def _add_sub(op: str) -> Callable:
    def build(args, kwargs, dts, out, conv):
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        b = conv(1)
        if alpha != 1:
            b = Expr.call("mul", b, _const(alpha, out))
        a = conv(0)
        if _is_float(out):
            shifted = _one_plus_tanh(op, a, b, out)
            if shifted is not None:
                return shifted
        return _to(Expr.call(op, a, b), dts[0] if _is_float(dts[0]) else out, out)
    return build


def _is_one(e: Expr) -> bool:
    return e.op == "const" and e.value == 1 and e.dtype in (None, *_FLOAT)


def _one_plus_tanh(op: str, a: Expr, b: Expr, out: str) -> Expr | None:
    """``1 + tanh(u)`` as ``2 * sigmoid(2u)`` and ``1 - tanh(u)`` as ``2 * sigmoid(-2u)`` (the
    tanh-approximated GELU's factor), else None. The same value without the cancellation of
    ``1 + tanh(u)`` where tanh(u) nears -1, and on a GPU a fraction of the instructions: Triton's
    fp32 tanh is libdevice's branchy ~34 PTX instructions an element, the sigmoid one ``ex2`` and
    one division (9 in all; sm_90, docs/results/kernelbench.md, twenty-seventh session)."""
    if op == "add" and _is_one(b) and a.op == "tanh":
        a, b = b, a
    if _is_one(a) and b.op == "tanh" and op in ("add", "sub"):
        scale = 2.0 if op == "add" else -2.0
        inner = Expr.call("mul", b.args[0], _const(scale, out))
        return Expr.call("mul", Expr.call("sigmoid", inner), _const(2.0, out))
    return None


def _where(args, kwargs, dts, out, conv):
    c = args[0] if dts[0] == "bool" else Expr.call("ne", args[0], _const(0, dts[0]))
    a, b = (_to(args[i], dts[i], out) if isinstance(args[i], Expr) else _const(args[i], out) for i in (1, 2))
    return Expr.call("where", c, a, b)


def _clamp(args, kwargs, dts, out, conv):
    x = conv(0)
    lo = kwargs.get("min", args[1] if len(args) > 1 else None)
    hi = kwargs.get("max", args[2] if len(args) > 2 else None)
    if lo is not None:
        x = Expr.call("max", x, lo if isinstance(lo, Expr) else _const(lo, out))
    if hi is not None:
        x = Expr.call("min", x, hi if isinstance(hi, Expr) else _const(hi, out))
    return x


def _relu(args, kwargs, dts, out, conv):
    return Expr.call("max", conv(0), _const(0, out))


def _cast(args, kwargs, dts, out, conv):
    return _to(args[0], dts[0], out)


def _copy(args, kwargs, dts, out, conv):
    # aten.copy(self, src): self's shape and dtype, src's values (broadcast); self is not read
    src = args[1]
    return _to(src, dts[1], out) if isinstance(src, Expr) else _const(src, out)


def _div_mode(args, kwargs, dts, out, conv):
    mode = kwargs.get("rounding_mode", args[2] if len(args) > 2 else None)
    if not _is_float(out):
        if mode == "floor":
            return Expr.call("floordiv", conv(0), conv(1))
        q = Expr.call("div", _to(conv(0), out, "float64"), _to(conv(1), out, "float64"))
        return _to(Expr.call("trunc", q), "float64", out)
    return Expr.call(mode, Expr.call("div", conv(0), conv(1)))


def _logical_xor(args, kwargs, dts, out, conv):
    a = args[0] if dts[0] == "bool" else Expr.call("ne", args[0], _const(0, dts[0]))
    b = args[1] if dts[1] == "bool" else Expr.call("ne", args[1], _const(0, dts[1]))
    return Expr.call("ne", a, b)


def _bitwise(op: str, logical: str) -> Callable:
    """``bitwise_and``/``or``/``xor``: the bits of integers; of bools, the logical op."""
    def build(args, kwargs, dts, out, conv):
        return Expr.call(logical if out == "bool" else op, conv(0), conv(1))
    return build


# the integer dtypes a shift by a literal lowers for (computed in i32 below 64 bits: akg_rag.lower.infer)
_INT_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8"})


def _shift(left: bool) -> Callable:
    """``a << k`` as ``a * 2**k`` and ``a >> k`` as ``floordiv(a, 2**k)`` (the same bits in two's
    complement, wrapping as the stored dtype does); a tensor or out-of-range shift stays torch's."""
    def build(args, kwargs, dts, out, conv):
        k = args[1]
        if isinstance(k, bool) or not isinstance(k, int) or out not in _INT_DTYPES:
            return None
        if not 0 <= k <= (62 if out == "int64" else 30):
            return None
        return Expr.call("mul" if left else "floordiv", conv(0), _const(2 ** k, out))
    return build


def _hypot(args, kwargs, dts, out, conv):
    """``sqrt(a*a + b*b)`` without its overflow: ``m * sqrt(1 + (n/m)**2)`` for m = max(|a|, |b|),
    n the other; 0 where both are 0, inf where either is (even beside a NaN, as C's hypot)."""
    if not _is_float(out):
        return None
    a, b = Expr.call("abs", conv(0)), Expr.call("abs", conv(1))
    m, n = Expr.call("max", a, b), Expr.call("min", a, b)
    q = Expr.call("div", n, m)
    r = Expr.call("mul", m, Expr.call("sqrt", Expr.call("add", _const(1.0), Expr.call("mul", q, q))))
    r = Expr.call("where", Expr.call("eq", m, _const(0.0)), _const(0.0), r)
    inf = Expr.call("logical_or", Expr.call("isinf", a), Expr.call("isinf", b))
    return Expr.call("where", inf, Expr.const(math.inf), r)


def _round(args, kwargs, dts, out, conv):
    """``torch.round(x, decimals=d)`` as torch computes it: ``round(x * 10**d) / 10**d`` (``d`` <
    0: ``round(x / 10**-d) * 10**-d``), halves to even; integers unchanged."""
    d = kwargs.get("decimals", args[1] if len(args) > 1 else 0)
    if not _is_float(dts[0]):
        return args[0]
    x = conv(0)
    if not d:
        return Expr.call("round", x)
    p = _const(float(10 ** abs(d)))
    if d > 0:
        return Expr.call("div", Expr.call("round", Expr.call("mul", x, p)), p)
    return Expr.call("mul", Expr.call("round", Expr.call("div", x, p)), p)


def _bitwise_not(args, kwargs, dts, out, conv):
    if dts[0] == "bool":
        return Expr.call("logical_not", args[0])
    return Expr.call("bitwise_not", conv(0))


def _masked_fill(args, kwargs, dts, out, conv):
    fill = _to(args[2], dts[2], out) if isinstance(args[2], Expr) else _const(args[2], out)
    return Expr.call("where", args[1], fill, _to(args[0], dts[0], out))


def _nan_to_num(args, kwargs, dts, out, conv):
    x = conv(0)
    nan = args[1] if len(args) > 1 and args[1] is not None else 0.0
    big = torch.finfo(getattr(torch, out)).max
    pos = args[2] if len(args) > 2 and args[2] is not None else big
    neg = args[3] if len(args) > 3 and args[3] is not None else -big
    x = Expr.call("where", Expr.call("isnan", x), _const(float(nan)), x)
    x = Expr.call("where", Expr.call("eq", x, Expr.const(math.inf)), _const(float(pos)), x)
    return Expr.call("where", Expr.call("eq", x, Expr.const(-math.inf)), _const(float(neg)), x)


_SPECIAL: dict[str, Callable] = {
    "add": _add_sub("add"), "sub": _add_sub("sub"), "where": _where, "clamp": _clamp,
    "relu": _relu, "_to_copy": _cast, "copy": _copy, "convert_element_type": _cast, "logical_xor": _logical_xor,
    "bitwise_not": _bitwise_not, "masked_fill": _masked_fill, "nan_to_num": _nan_to_num,
    "bitwise_and": _bitwise("bitwise_and", "logical_and"), "bitwise_or": _bitwise("bitwise_or", "logical_or"),
    "bitwise_xor": _bitwise("bitwise_xor", "ne"),
    "__lshift__": _shift(True), "__rshift__": _shift(False), "bitwise_left_shift": _shift(True),
    "bitwise_right_shift": _shift(False), "hypot": _hypot, "round": _round,
}
