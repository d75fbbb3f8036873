"""Shapes, value classes and C++ names of sketch values, for the C++ backend.

A tile dimension is a :class:`Dim`: its size as the validator compares it (parameters replaced by
their values) and as C++ text (parameters kept as names, so that a search editing a tunable in the
generated source changes every extent that depends on it). Value classes are ``f`` (the float
compute type ``FT``), ``i`` (int64_t) and ``b`` (bool); see :mod:`akg_rag.lower.cpp_prelude`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from akg_rag.errors import SketchError
from akg_rag.lower.cpp_prelude import DTYPES
from akg_rag.lower.sizes import ONE as ONE_SIZE, Size, size_of
from akg_rag.lower.typed import TypedSketch, slice_extent
from akg_rag.sketch import vocab
from akg_rag.sketch.nodes import BinOp, Call, Expr, Name, Neg, Num, ParamDecl, Sketch, Str

ONE = ONE_SIZE.key
KINDS = {"float": "f", "int": "i", "bool": "b"}   # typed's element kinds -> value classes
CLASS_RANK = {"b": 0, "i": 1, "f": 2}


def fail(message: str, node: object) -> SketchError:
    """A ``SketchError`` at ``node``'s position."""
    return SketchError(message, getattr(node, "line", 0), getattr(node, "column", 0))


@dataclass(frozen=True)
class Dim:
    """One tile extent: ``key`` compares (a :class:`Size` key: tunables symbolic, other parameters
    substituted), ``text`` is its C++ form (tunables by their C++ names)."""

    key: str
    text: str
    const: bool = False      # a compile-time constant (numbers and constexpr parameters only)
    names: frozenset = frozenset()   # sketch names the extent reads (loop variables decide hoisting)

    def is_one(self) -> bool:
        return self.key == ONE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dim) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def one() -> Dim:
    return Dim(ONE, "1", True)


@dataclass
class Var:
    """A sketch local in C++: a scalar variable or a tile (a pointer into per-thread storage)."""

    name: str
    cname: str
    shape: list[Dim]
    cls: str

    @property
    def is_tile(self) -> bool:
        return bool(self.shape)


@dataclass
class Names:
    """The sketch's declarations, its typed analysis, and how each name is spelled in C++."""

    typed: TypedSketch
    kernel: str
    symbols: set[str] = field(default_factory=set)
    params: dict[str, ParamDecl] = field(default_factory=dict)
    values: dict[str, int | float] = field(default_factory=dict)   # Num-valued params
    subst: dict[str, Expr] = field(default_factory=dict)           # non-tunable params, into sizes
    tunables: dict[str, str] = field(default_factory=dict)         # param -> C++ name
    tensors: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        sk = self.typed.sketch
        self.symbols = {s.name for s in sk.symbols}
        self.params = {p.name: p for p in sk.params}
        for p in sk.params:
            v = num_value(p.value)
            if v is not None:
                self.values[p.name] = v
        self.tunables = {p: f"{self.kernel.upper()}_{p}" for p in self.typed.tunables}
        self.subst = {k: v for k, v in self.typed.params.items() if k not in self.tunables}
        self.tensors = {t.name: t for t in sk.tensors}

    @property
    def sketch(self) -> Sketch:
        return self.typed.sketch

    def param_cname(self, name: str) -> str:
        return self.tunables.get(name, f"c_{name}")


def num_value(e: Expr) -> int | float | None:
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Neg) and isinstance(e.operand, Num):
        return -e.operand.value
    return None


def promote(*classes: str) -> str:
    """The class of an arithmetic result: f beats i beats b (bool arithmetic is integer)."""
    top = max(classes, key=CLASS_RANK.__getitem__)
    return "i" if top == "b" else top


def expr_names(e: Expr) -> set[str]:
    """Every name an expression reads."""
    if isinstance(e, Name):
        return {e.id}
    if isinstance(e, BinOp):
        return expr_names(e.left) | expr_names(e.right)
    if isinstance(e, Neg):
        return expr_names(e.operand)
    if isinstance(e, Call):
        out: set[str] = set()
        for a in [*e.args, *e.kwargs.values()]:
            out |= expr_names(a)
        return out
    return set()


class ShapeMixin:
    """Dims of size expressions and the shape and class of every compute expression."""

    names: Names
    mat: dict[int, Var]

    # ---- provided by the code generator -----------------------------------------------------------
    def lookup(self, name: str) -> Var | None:
        raise NotImplementedError

    def loop_cname(self, name: str) -> str | None:
        raise NotImplementedError

    def elem(self, e: Expr, idx: list[str]) -> tuple[str, str]:
        raise NotImplementedError

    # ---- sizes ----------------------------------------------------------------------------------
    def dim(self, e: Expr) -> Dim:
        """The extent given by a size expression (an alloc dimension, iota's length)."""
        return self.size_dim(size_of(e, self.names.subst))

    def extent(self, start: Expr, stop: Expr) -> Dim:
        """The extent of the slice ``start:stop``."""
        return self.size_dim(slice_extent(start, stop, self.names.subst))

    def size_dim(self, size: Size) -> Dim:
        """A :class:`Size` (over symbols, tunables and numbers) as a C++ extent."""
        const = size.value is not None or all(n in self.names.tunables for n in size.names)
        text = str(size.value) if size.value is not None else self.int_text(size.expr)
        return Dim(size.key, text, const, frozenset(size.names))

    def name_text(self, n: str) -> str:
        """C++ spelling of a scalar name (symbol, parameter, loop variable, scalar local)."""
        if n in self.names.symbols:
            return f"s_{n}"
        if n in self.names.params:
            return self.names.param_cname(n)
        loop = self.loop_cname(n)
        if loop is not None:
            return loop
        var = self.lookup(n)
        if var is not None and not var.is_tile:
            return var.cname
        raise SketchError(f"{n!r} is not a scalar known to the C++ backend here")

    def int_text(self, e: Expr) -> str:
        """C++ int64 text of a scalar index expression."""
        text, cls = self.elem(e, [])
        return text if cls == "i" else f"int64_t({text})"

    # ---- values ---------------------------------------------------------------------------------
    def shape(self, e: Expr) -> list[Dim]:
        """Shape of a compute expression ([] for a scalar)."""
        vt = self.names.typed.types.get(id(e))
        if vt is not None:
            return [self.size_dim(d) for d in vt.shape]
        if isinstance(e, (Num, Str)):
            return []
        if isinstance(e, Name):
            if e.id in self.names.tensors:
                return [self.size_dim(d) for d in self.names.typed.shapes[e.id]]
            var = self.lookup(e.id)
            return var.shape if var is not None else []
        if isinstance(e, Neg):
            return self.shape(e.operand)
        if isinstance(e, BinOp):
            return self.broadcast([self.shape(e.left), self.shape(e.right)], e)
        if isinstance(e, Call):
            return self.call_shape(e)
        raise fail("not an expression", e)

    def call_shape(self, e: Call) -> list[Dim]:
        f = e.func
        if f == "iota":
            return [self.dim(e.args[0])]
        if f == "cast":
            return self.shape(e.args[0])
        if f == "apply":
            return self.broadcast([self.shape(a) for a in e.args[1:]], e)
        s = self.shape(e.args[0]) if e.args else []
        if f == "unsqueeze":
            ax = _axis(e, len(s) + 1)
            return s[:ax] + [one()] + s[ax:]
        if f == "transpose":
            return s[:-2] + [s[-1], s[-2]] if len(s) >= 2 else s
        if f in vocab.SCAN_OPS:
            return s
        if f in vocab.REDUCE_OPS:
            if not s:
                return []
            ax = _axis(e, len(s))
            keep = e.kwargs.get("keepdim")
            return s[:ax] + ([one()] if keep is not None and num_value(keep) else []) + s[ax + 1:]
        if f == "matmul":
            a, b = s, self.shape(e.args[1])
            if len(a) < 2 or len(b) < 2:
                raise fail("matmul needs tiles of rank >= 2", e)
            return self.broadcast([a[:-2], b[:-2]], e) + [a[-2], b[-1]]
        return self.broadcast([self.shape(a) for a in e.args], e)

    def broadcast(self, shapes: list[list[Dim]], node: object) -> list[Dim]:
        """NumPy broadcasting of operand shapes (size-1 dims stretch)."""
        rank = max((len(s) for s in shapes), default=0)
        out: list[Dim] = []
        for i in range(rank):
            pick: Dim | None = None
            for s in shapes:
                k = len(s) - rank + i
                if k < 0:
                    continue
                d = s[k]
                if pick is None or (pick.is_one() and not d.is_one()):
                    pick = d
                elif not d.is_one() and d != pick:
                    raise fail("operand shapes do not broadcast", node)
            out.append(pick or one())
        return out

    def cls(self, e: Expr) -> str:
        """Value class of a compute expression: f, i or b."""
        vt = self.names.typed.types.get(id(e))
        if vt is not None:
            return KINDS[vt.kind]
        if isinstance(e, Num):
            return "f" if isinstance(e.value, float) else "i"
        if isinstance(e, Name):
            decl = self.names.tensors.get(e.id)
            if decl is not None:
                return DTYPES[decl.dtype][2]
            if e.id in self.names.params:
                v = self.names.values.get(e.id)
                if v is None:
                    return self.cls(self.names.params[e.id].value)
                return "f" if isinstance(v, float) else "i"
            var = self.lookup(e.id)
            return var.cls if var is not None else "i"
        if isinstance(e, Neg):
            return promote(self.cls(e.operand))
        if isinstance(e, BinOp):
            if e.op == "/":
                return "f"
            return promote(self.cls(e.left), self.cls(e.right))
        if isinstance(e, Call):
            return self.call_cls(e)
        return "f"

    def call_cls(self, e: Call) -> str:
        f = e.func
        if f in ("iota", "reduce_argmax", "reduce_argmin"):
            return "i"
        if f in ("gt", "ge", "lt", "le", "eq", "ne", "logical_and", "logical_or", "logical_not",
                 "isnan", "isinf", "signbit"):
            return "b"
        if f == "cast":
            return DTYPES[e.args[1].id][2]  # type: ignore[union-attr]
        if f == "where":
            a, b = self.cls(e.args[1]), self.cls(e.args[2])
            return a if a == b else promote(a, b)
        if f in ("unsqueeze", "transpose", "scan_max"):
            return self.cls(e.args[0])
        if f in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"):
            classes = [self.cls(a) for a in e.args]
            return "b" if all(c == "b" for c in classes) else promote(*classes)
        if f in ("reduce_max", "reduce_min"):
            return promote(self.cls(e.args[0]))
        if f in ("reduce_sum", "reduce_prod", "scan_sum", "scan_prod", "abs", "neg", "sign", "floor",
                 "ceil", "trunc", "round", "add", "sub", "mul", "max", "min", "floordiv", "remainder",
                 "fmod"):
            return promote(*[self.cls(a) for a in e.args])
        return "f"


def _axis(e: Call, rank: int) -> int:
    v = num_value(e.kwargs["axis"])
    if not isinstance(v, int) or not -rank <= v < max(rank, 1):
        raise fail(f"{e.func}: axis out of range for a rank-{rank} value", e)
    return v % max(rank, 1)
