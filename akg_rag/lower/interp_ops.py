"""The compute ops of the Unified Sketch in torch, for the reference interpreter (lower/interp.py).

Values are torch tensors (0-d for scalars) or Python numbers. Floating compute is f32 for
f16/bf16/f32 data and f64 for f64 data (docs/lowering.md, "Arithmetic"); integers compute in int64.
Integer ``//`` and ``%`` floor (the contract defines them for non-negative operands only, where
floor and truncation agree).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from akg_rag.errors import SketchError

Value = Any  # torch.Tensor | int | float | bool

# sketch dtype -> the torch dtype data of that type computes in
COMPUTE_DTYPE: dict[str, torch.dtype] = {
    "f16": torch.float32, "bf16": torch.float32, "f32": torch.float32, "f64": torch.float64,
    "i8": torch.int64, "i16": torch.int64, "i32": torch.int64, "i64": torch.int64, "u8": torch.int64,
    "bool": torch.bool,
}
# sketch dtype -> its storage dtype (cast rounds through it)
STORAGE_DTYPE: dict[str, torch.dtype] = {
    "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64,
    "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
    "bool": torch.bool,
}


def compute_dtype(dt: torch.dtype) -> torch.dtype:
    """The dtype a tensor of storage dtype ``dt`` computes in once loaded."""
    if dt == torch.float64:
        return torch.float64
    if dt.is_floating_point:
        return torch.float32
    if dt == torch.bool:
        return torch.bool
    return torch.int64


def upcast(t: torch.Tensor) -> torch.Tensor:
    """A loaded tensor in its compute dtype."""
    return t.to(compute_dtype(t.dtype))


def as_tensor(v: Value) -> torch.Tensor:
    """A Python number as a 0-d tensor (floats as f32: 0-d tensors do not widen tiles)."""
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, bool):
        return torch.tensor(v)
    if isinstance(v, int):
        return torch.tensor(v, dtype=torch.int64)
    return torch.tensor(float(v), dtype=torch.float32)


def _float(v: Value) -> torch.Tensor:
    t = as_tensor(v)
    return t if t.is_floating_point() else t.to(torch.float32)


def _floordiv(a: Value, b: Value) -> Value:
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        return math.floor(a / b)
    a, b = as_tensor(a), as_tensor(b)
    if a.is_floating_point() or b.is_floating_point():
        return torch.floor(a / b)
    return torch.div(a, b, rounding_mode="floor")


def _mod(a: Value, b: Value) -> Value:
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        return a % b
    return torch.remainder(as_tensor(a), as_tensor(b))


def infix(op: str, a: Value, b: Value) -> Value:
    """``a op b`` for op in + - * / // %: Python arithmetic on numbers, torch on tensors."""
    if op == "//":
        return _floordiv(a, b)
    if op == "%":
        return _mod(a, b)
    if op == "/":
        if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
            return a / b
        return torch.div(_float(a), as_tensor(b))
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        a, b = as_tensor(a), as_tensor(b)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[op]()


def _t1(fn: Callable[[torch.Tensor], torch.Tensor], floating: bool = True) -> Callable[[Value], Value]:
    return lambda v: fn(_float(v) if floating else as_tensor(v))


def _t2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> Callable[[Value, Value], Value]:
    return lambda a, b: fn(as_tensor(a), as_tensor(b))


def _transpose(v: Value) -> Value:
    t = as_tensor(v)
    return t.transpose(-1, -2) if t.dim() >= 2 else t


UNARY: dict[str, Callable[[Value], Value]] = {
    "exp": _t1(torch.exp), "log": _t1(torch.log), "sqrt": _t1(torch.sqrt), "rsqrt": _t1(torch.rsqrt),
    "tanh": _t1(torch.tanh), "sigmoid": _t1(torch.sigmoid), "abs": _t1(torch.abs, False),
    "neg": _t1(torch.neg, False), "erf": _t1(torch.erf), "log1p": _t1(torch.log1p),
    "expm1": _t1(torch.expm1), "reciprocal": _t1(torch.reciprocal), "floor": _t1(torch.floor, False),
    "ceil": _t1(torch.ceil, False), "sin": _t1(torch.sin), "cos": _t1(torch.cos),
    "transpose": _transpose, "sign": _t1(torch.sign, False), "trunc": _t1(torch.trunc, False),
    "round": _t1(torch.round, False), "exp2": _t1(torch.exp2), "log2": _t1(torch.log2),
    "isnan": _t1(torch.isnan, False), "isinf": _t1(torch.isinf, False),
    "signbit": _t1(torch.signbit, False),
    "logical_not": _t1(torch.logical_not, False), "atan": _t1(torch.atan), "tan": _t1(torch.tan),
    "asin": _t1(torch.asin), "acos": _t1(torch.acos), "sinh": _t1(torch.sinh), "cosh": _t1(torch.cosh),
    "asinh": _t1(torch.asinh), "acosh": _t1(torch.acosh), "atanh": _t1(torch.atanh),
    "erfc": _t1(torch.erfc), "lgamma": _t1(torch.lgamma),
    "bitwise_not": _t1(torch.bitwise_not, False),
}


def _matmul(a: Value, b: Value) -> torch.Tensor:
    a, b = as_tensor(a), as_tensor(b)
    if a.dim() < 2 or b.dim() < 2:
        raise SketchError(f"matmul needs rank >= 2 tiles, got {tuple(a.shape)} and {tuple(b.shape)}")
    dt = torch.promote_types(_float(a).dtype, _float(b).dtype)
    return torch.matmul(a.to(dt), b.to(dt))


def _div(a: Value, b: Value) -> torch.Tensor:
    return torch.div(_float(a), as_tensor(b))


def _pow(a: Value, b: Value) -> torch.Tensor:
    a, b = as_tensor(a), as_tensor(b)
    if not a.is_floating_point() and not b.is_floating_point():
        return torch.pow(a, b)
    return torch.pow(_float(a), b)


BINARY: dict[str, Callable[[Value, Value], Value]] = {
    "add": _t2(torch.add), "sub": _t2(torch.sub), "mul": _t2(torch.mul), "div": _div,
    "max": _t2(torch.maximum), "min": _t2(torch.minimum), "pow": _pow,
    "gt": _t2(torch.gt), "ge": _t2(torch.ge), "lt": _t2(torch.lt), "le": _t2(torch.le),
    "eq": _t2(torch.eq), "ne": _t2(torch.ne), "matmul": _matmul,
    "fmod": _t2(torch.fmod), "remainder": _t2(torch.remainder), "atan2": lambda a, b: torch.atan2(_float(a), _float(b)),
    "logical_and": _t2(torch.logical_and), "logical_or": _t2(torch.logical_or),
    "floordiv": lambda a, b: _floordiv(as_tensor(a), as_tensor(b)),
    "bitwise_and": _t2(torch.bitwise_and), "bitwise_or": _t2(torch.bitwise_or),
    "bitwise_xor": _t2(torch.bitwise_xor),
}


def _reduce(fn: Callable[..., torch.Tensor]) -> Callable[[Value, int, bool], torch.Tensor]:
    def run(v: Value, axis: int, keepdim: bool) -> torch.Tensor:
        t = as_tensor(v)
        if t.dim() == 0:
            return fn(t.reshape(1), 0, False).reshape(())
        return fn(t, axis, keepdim)
    return run


REDUCE: dict[str, Callable[[Value, int, bool], torch.Tensor]] = {
    "reduce_sum": _reduce(lambda t, a, k: torch.sum(t, a, keepdim=k)),
    "reduce_mean": _reduce(lambda t, a, k: torch.mean(_float(t), a, keepdim=k)),
    "reduce_max": _reduce(lambda t, a, k: torch.amax(t, a, keepdim=k)),
    "reduce_min": _reduce(lambda t, a, k: torch.amin(t, a, keepdim=k)),
    "reduce_prod": _reduce(lambda t, a, k: torch.prod(t, a, keepdim=k)),
    "reduce_argmax": _reduce(lambda t, a, k: torch.argmax(t, a, keepdim=k)),
    "reduce_argmin": _reduce(lambda t, a, k: torch.argmin(t, a, keepdim=k)),
}

SCAN: dict[str, Callable[[torch.Tensor, int], torch.Tensor]] = {
    "scan_sum": lambda t, a: torch.cumsum(t, a),
    "scan_prod": lambda t, a: torch.cumprod(t, a),
    "scan_max": lambda t, a: torch.cummax(t, a).values,
}

# apply("name", v, extra...): the named elementwise functions the interpreter knows
APPLY: dict[str, Callable[..., Value]] = {
    "relu": lambda v: torch.relu(_float(v)),
    "leaky_relu": lambda v, s=0.01: torch.where(_float(v) > 0, _float(v), _float(v) * s),
    "gelu": lambda v: torch.nn.functional.gelu(_float(v)),
    "gelu_tanh": lambda v: torch.nn.functional.gelu(_float(v), approximate="tanh"),
    "silu": lambda v: torch.nn.functional.silu(_float(v)),
    "softplus": lambda v: torch.nn.functional.softplus(_float(v)),
    "hardswish": lambda v: torch.nn.functional.hardswish(_float(v)),
    "hardsigmoid": lambda v: torch.nn.functional.hardsigmoid(_float(v)),
    "mish": lambda v: torch.nn.functional.mish(_float(v)),
    "elu": lambda v, a=1.0: torch.nn.functional.elu(_float(v), alpha=float(a)),
}


def cast(v: Value, dtype: str) -> torch.Tensor:
    """``cast(v, dtype)``: round through the storage dtype, then compute in its compute dtype."""
    t = as_tensor(v).to(STORAGE_DTYPE[dtype])
    return t.to(COMPUTE_DTYPE[dtype])


def where(c: Value, a: Value, b: Value) -> torch.Tensor:
    """``where(cond, a, b)`` with NumPy broadcasting and promotion of a and b."""
    a, b = as_tensor(a), as_tensor(b)
    return torch.where(as_tensor(c).to(torch.bool), a, b)
