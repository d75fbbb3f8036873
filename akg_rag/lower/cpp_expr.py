"""C++ text of one element of a sketch expression, for the C++ backend.

``elem(e, idx)`` renders the element of ``e`` at the index ``idx`` (one C++ int expression per
dimension of ``e``'s shape). Elementwise ops, ``iota``, ``unsqueeze``, ``transpose`` and whole
tensors named in a computation are rendered inline, so a chain of them becomes one expression in one
loop; reductions, scans and ``matmul`` are computed beforehand into tiles (``self.mat``) and read
back like locals. Every operand appears once in the text (helpers are inline functions), so
nothing is evaluated twice.
"""

from __future__ import annotations

import math

from akg_rag.lower.cpp_prelude import APPLY_FUNCTIONS, CLASS_TYPES, DTYPES, FLOAT_UNARY
from akg_rag.lower.cpp_shapes import Dim, ShapeMixin, Var, fail, num_value, promote
from akg_rag.sketch.nodes import BinOp, Call, Expr, Name, Neg, Num, Str

COMPARE = {"gt": ">", "ge": ">=", "lt": "<", "le": "<=", "eq": "==", "ne": "!="}
ARITH = {"add": "+", "sub": "-", "mul": "*"}
INT_IDENTITY = ("floor", "ceil", "trunc", "round")
ROUNDING = {"floor": "std::floor", "ceil": "std::ceil", "trunc": "std::trunc", "round": "std::nearbyint"}


def conv(text: str, src: str, dst: str) -> str:
    """Convert a value of class ``src`` to class ``dst``."""
    if src == dst:
        return text
    if dst == "b":
        return f"({text} != 0)"
    return f"{CLASS_TYPES[dst]}({text})"


def offset(idx: list[str], shape: list[Dim]) -> str:
    """Row-major flat offset of ``idx`` in a tile of ``shape`` (size-1 dims contribute nothing)."""
    acc = ""
    for ix, d in zip(idx, shape):
        if d.is_one():
            continue
        if acc:
            acc = f"({acc}) * {d.text}" if " " in acc else f"{acc} * {d.text}"
        if ix != "0":
            acc = f"{acc} + {ix}" if acc else ix
    return acc or "0"


def align(idx: list[str], rank: int, shape: list[Dim]) -> list[str]:
    """The index of a broadcast operand of ``shape`` inside a result of ``rank`` dims."""
    lead = rank - len(shape)
    return ["0" if d.is_one() else idx[lead + k] for k, d in enumerate(shape)]


def float_literal(v: float) -> str:
    if math.isinf(v):
        return ("-" if v < 0 else "") + "std::numeric_limits<FT>::infinity()"
    if math.isnan(v):
        return "std::numeric_limits<FT>::quiet_NaN()"
    return f"FT({v!r})"


class ExprMixin(ShapeMixin):
    """``elem``: C++ text and class of an expression's element."""

    def tensor_elem(self, name: str, idx: list[str]) -> tuple[str, str]:
        """Element of a whole tensor named in a computation (an implicit load, always in bounds)."""
        decl = self.names.tensors[name]
        shape = [self.size_dim(d) for d in self.names.typed.shapes[name]]
        terms = [f"{ix} * st_{name}_{d}" for d, (ix, dm) in enumerate(zip(idx, shape))
                 if ix != "0" and not dm.is_one()]
        cls = DTYPES[decl.dtype][2]
        return f"{CLASS_TYPES[cls]}(p_{name}[{' + '.join(terms) or '0'}])", cls

    def elem(self, e: Expr, idx: list[str]) -> tuple[str, str]:
        if id(e) in self.mat:
            var = self.mat[id(e)]
            return self.var_elem(var, idx), var.cls
        if isinstance(e, Num):
            if isinstance(e.value, float):
                return float_literal(e.value), "f"
            v = int(e.value)
            return (str(v) if abs(v) < 2**31 else f"{v}L"), "i"
        if isinstance(e, Str):
            raise fail("a string is only allowed as the first argument of apply", e)
        if isinstance(e, Name):
            return self.name_elem(e, idx)
        if isinstance(e, Neg):
            t, c = self.elem(e.operand, idx)
            c = promote(c)
            return f"(-{conv(t, self.cls(e.operand), c)})", c
        if isinstance(e, BinOp):
            return self.binop(e.op, e.left, e.right, idx, e)
        if isinstance(e, Call):
            return self.call_elem(e, idx)
        raise fail("not an expression", e)

    def var_elem(self, var: Var, idx: list[str]) -> str:
        return f"{var.cname}[{offset(idx, var.shape)}]" if var.is_tile else var.cname

    def name_elem(self, e: Name, idx: list[str]) -> tuple[str, str]:
        if e.id in self.names.tensors:
            return self.tensor_elem(e.id, idx)
        var = self.lookup(e.id)
        if var is not None:
            return self.var_elem(var, idx), var.cls
        try:
            text = self.name_text(e.id)
        except Exception:
            raise fail(f"undeclared name {e.id!r}", e) from None
        return text, self.cls(e)

    def operand(self, a: Expr, idx: list[str], rank: int, cls: str) -> str:
        t, c = self.elem(a, align(idx, rank, self.shape(a)))
        return conv(t, c, cls)

    def binop(self, op: str, left: Expr, right: Expr, idx: list[str], node: Expr) -> tuple[str, str]:
        rank = len(idx)
        cl, cr = self.cls(left), self.cls(right)
        c = "f" if op == "/" else promote(cl, cr)
        a, b = self.operand(left, idx, rank, c), self.operand(right, idx, rank, c)
        if op in "+-*/":
            return f"({a} {op} {b})", c
        if op == "//":
            return f"akg::floordiv({a}, {b})", c
        if op == "%":
            return f"akg::remainder({a}, {b})", c
        raise fail(f"unknown operator {op!r}", node)

    def call_elem(self, e: Call, idx: list[str]) -> tuple[str, str]:
        f, args, rank = e.func, e.args, len(idx)
        if f in ARITH:
            return self.binop(ARITH[f], args[0], args[1], idx, e)
        if f == "div":
            return self.binop("/", args[0], args[1], idx, e)
        if f == "floordiv":
            return self.binop("//", args[0], args[1], idx, e)
        if f == "remainder":
            return self.binop("%", args[0], args[1], idx, e)
        if f == "iota":
            return idx[0], "i"
        if f == "unsqueeze":
            return self.unsqueeze_elem(e, idx)
        if f == "transpose":
            inner = idx[:-2] + [idx[-1], idx[-2]] if rank >= 2 else idx
            return self.elem(args[0], inner)
        if f == "cast":
            return self.cast_elem(e, idx)
        if f == "where":
            c = self.cls(e)
            cond = self.operand(args[0], idx, rank, "b")
            return f"({cond} ? {self.operand(args[1], idx, rank, c)} : {self.operand(args[2], idx, rank, c)})", c
        if f in COMPARE:
            c = promote(self.cls(args[0]), self.cls(args[1]))
            a, b = (self.operand(x, idx, rank, c) for x in args)
            return f"({a} {COMPARE[f]} {b})", "b"
        if f in ("logical_and", "logical_or"):
            a, b = (self.operand(x, idx, rank, "b") for x in args)
            return f"bool({a} {'&' if f == 'logical_and' else '|'} {b})", "b"
        if f == "logical_not":
            return f"(!{self.operand(args[0], idx, rank, 'b')})", "b"
        if f in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            c = self.cls(e)
            a, b = (self.operand(x, idx, rank, c) for x in args)
            sym = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[f]
            return (f"bool({a} {sym} {b})" if c == "b" else f"({a} {sym} {b})"), c
        if f == "bitwise_not":
            c = self.cls(e)
            a = self.operand(args[0], idx, rank, c)
            return (f"(!{a})" if c == "b" else f"(~{a})"), c
        if f in ("max", "min"):
            c = self.cls(e)
            a, b = (self.operand(x, idx, rank, c) for x in args)
            return f"akg::v{f}({a}, {b})", c
        if f in ("pow", "atan2"):
            a, b = (self.operand(x, idx, rank, "f") for x in args)
            return f"std::{f}({a}, {b})", "f"
        if f == "fmod":
            c = self.cls(e)
            a, b = (self.operand(x, idx, rank, c) for x in args)
            return (f"std::fmod({a}, {b})" if c == "f" else f"({a} % {b})"), c
        if f == "apply":
            return self.apply_elem(e, idx)
        if len(args) == 1:
            return self.unary_elem(e, idx)
        raise fail(f"the C++ backend cannot compute {f!r} element by element", e)

    def unsqueeze_elem(self, e: Call, idx: list[str]) -> tuple[str, str]:
        rank = len(idx)
        k = int(num_value(e.kwargs["axis"])) % max(rank, 1)
        return self.elem(e.args[0], idx[:k] + idx[k + 1:])

    def cast_elem(self, e: Call, idx: list[str]) -> tuple[str, str]:
        t, c = self.elem(e.args[0], idx)
        dtype = e.args[1].id  # type: ignore[union-attr]
        ctype, _, dst = DTYPES[dtype]
        if dst == "f":
            if dtype in ("f16", "bf16", "f32"):   # round through the narrower type, compute in FT
                return f"FT({ctype}({conv(t, c, 'f')}))", "f"
            return conv(t, c, "f"), "f"
        if dst == "i":
            return f"int64_t({ctype}({t}))", "i"
        return conv(t, c, "b"), "b"

    def unary_elem(self, e: Call, idx: list[str]) -> tuple[str, str]:
        f = e.func
        t, c = self.elem(e.args[0], idx)
        if f in FLOAT_UNARY:
            return f"{FLOAT_UNARY[f]}({conv(t, c, 'f')})", "f"
        if f == "neg":
            c2 = promote(c)
            return f"(-{conv(t, c, c2)})", c2
        if f == "abs":
            c2 = promote(c)
            return f"std::abs({conv(t, c, c2)})", c2
        if f == "reciprocal":
            return f"(FT(1) / {conv(t, c, 'f')})", "f"
        if f in ROUNDING:
            return (f"{ROUNDING[f]}({t})", "f") if c == "f" else (conv(t, c, "i"), "i")
        if f == "sign":
            if c == "f":
                return f"akg::sign({t})", "f"
            return f"int64_t(({t} > 0) - ({t} < 0))", "i"
        if f == "isnan":
            return (f"std::isnan({t})", "b") if c == "f" else ("false", "b")
        if f == "isinf":
            return (f"std::isinf({t})", "b") if c == "f" else ("false", "b")
        if f == "signbit":
            return (f"std::signbit({t})", "b") if c == "f" else (f"({t} < 0)", "b")
        raise fail(f"the C++ backend has no rendering of {f!r}", e)

    def apply_elem(self, e: Call, idx: list[str]) -> tuple[str, str]:
        fname = e.args[0].value  # type: ignore[union-attr]
        spec = APPLY_FUNCTIONS.get(fname)
        if spec is None:
            raise fail(f"apply: unknown function {fname!r}; the C++ backend knows "
                       f"{', '.join(sorted(APPLY_FUNCTIONS))}", e)
        helper, lo, hi = spec
        vals = e.args[1:]
        if not lo <= len(vals) <= hi:
            raise fail(f"apply({fname!r}) takes {lo} to {hi} value(s), got {len(vals)}", e)
        rank = len(idx)
        texts = [self.operand(a, idx, rank, "f") for a in vals]
        return f"akg::{helper}({', '.join(texts)})", "f"
