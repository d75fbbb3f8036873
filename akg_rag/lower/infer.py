"""Type inference for :mod:`akg_rag.lower.typed`: shapes, dtypes and locals of every launch.

The typing rules are listed in :mod:`akg_rag.lower.typed`. A local made by assignment takes the
promotion of every value assigned to it, which may depend on the types of other locals, so the
walk repeats until no local's type changes (the promotion only ever widens: it settles in a few
passes). The last pass records the types the backends read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from akg_rag.errors import SketchError
from akg_rag.lower.sizes import ONE, Size, size_of
from akg_rag.sketch import vocab
from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Load, Name, Neg, Num, Slice, Stmt, Store, Str,
)

if TYPE_CHECKING:
    from akg_rag.lower.typed import Launch, TypedSketch

# storage dtype -> the dtype values of it are computed in
_COMPUTE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i8": "i32", "i16": "i32",
            "i32": "i32", "u8": "i32", "i64": "i64", "bool": "bool"}
HALF = ("f16", "bf16")
_BINOPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "remainder"}
_BOOL_OPS = {"gt", "ge", "lt", "le", "eq", "ne", "logical_and", "logical_or", "logical_not", "isnan",
             "isinf", "signbit"}
_KEEP_OPS = {"add", "sub", "mul", "max", "min", "fmod", "remainder", "floordiv", "abs", "neg", "sign",
             "floor", "ceil", "trunc", "round"}
_EXACT_OPS = {"neg", "abs", "max", "min", "where", "transpose", "unsqueeze"}
# bits of integers (of bools: the logical op); a bool operand stays bool, a float one is an error
BITWISE_OPS = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"})


def compute_dtype(dtype: str) -> str:
    """The dtype a value stored as ``dtype`` is computed in (f16 -> f32, i8 -> i32, ...)."""
    return _COMPUTE[dtype]


@dataclass(frozen=True)
class VType:
    """Type of a value: shape, compute dtype, weakness and exactness.

    ``dtype`` is one of f32, f64, i32, i64, bool. A *weak* value (a literal, a numeric parameter)
    takes the dtype of the operand it meets. ``exact`` is "f16" or "bf16" when every element is
    exactly a value of that type (it was loaded from such a tensor unchanged), "*" for a constant
    that fits any float type, None otherwise: a backend may then compute ``matmul`` on 16-bit
    inputs with no loss."""

    shape: tuple[Size, ...]
    dtype: str
    weak: bool = False
    exact: str | None = None

    @property
    def kind(self) -> str:
        """Element class: "float", "int" or "bool"."""
        return "float" if self.dtype in ("f32", "f64") else ("bool" if self.dtype == "bool" else "int")

    @property
    def rank(self) -> int:
        """Number of axes (0 for a scalar)."""
        return len(self.shape)

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(s.text for s in self.shape)}]"


@dataclass(frozen=True)
class Definition:
    """What an ``alloc``, assignment or load does to its local.

    ``value`` is the type of the value written (for an alloc, of its ``init``; None without one);
    ``target`` is the local's type after the statement. A backend converts ``value`` to
    ``target``: broadcast a scalar, drop or insert size-1 axes, cast the dtype."""

    value: VType | None
    target: VType
    local: int                       # identity of the local (distinct for two locals of one name)


def promote(types: list[VType]) -> tuple[str, bool]:
    """Result dtype and weakness of arithmetic on ``types``: bool < int < float, strong widths win."""
    strong = {t.dtype for t in types if not t.weak} or {t.dtype for t in types}
    every = {t.dtype for t in types}
    if every & {"f32", "f64"}:
        dtype = "f64" if "f64" in strong else "f32"
    elif every & {"i32", "i64"}:
        dtype = "i64" if "i64" in strong else "i32"
    else:
        dtype = "bool"
    return dtype, all(t.weak for t in types)


def join_exact(a: str | None, b: str | None) -> str | None:
    """Exactness of a value that may be either ``a`` or ``b``."""
    if a == "*":
        return b
    if b == "*" or a == b:
        return a
    return None


def _float(dtype: str) -> str:
    return "f64" if dtype == "f64" else "f32"


def _fail(message: str, node: object) -> SketchError:
    return SketchError(message, getattr(node, "line", 0), getattr(node, "column", 0))


def _squeezed(shape: tuple[Size, ...]) -> list[str]:
    return [d.key for d in shape if not d.is_one]


@dataclass
class _Local:
    name: str
    shape: tuple[Size, ...]
    dtype: str
    weak: bool
    exact: str | None
    fixed: bool          # made by alloc: the dtype is declared, values are converted to it
    depth: int = 0       # scope depth of the definition (in the current pass)

    def vtype(self) -> VType:
        return VType(self.shape, self.dtype, self.weak, self.exact)


class Typer:
    """Fills a :class:`TypedSketch`'s types, definitions, loop-carried locals and launch facts."""

    def __init__(self, typed: TypedSketch, values: dict[str, Expr], symbols: set[str]) -> None:
        self.t = typed
        self.values = values                     # non-tunable params, substituted into sizes
        self.symbols = symbols
        self.tensors = {d.name: d for d in typed.sketch.tensors}
        self.locals: dict[int, _Local] = {}      # identity -> local; kept across passes
        self.changed = False

    def run(self) -> None:
        """Walk every launch until local types settle."""
        for _ in range(16):
            self.changed = False
            self.t.types.clear()
            self.t.definitions.clear()
            self.t.carried.clear()
            self.t.matmuls.clear()
            for launch in self.t.launches:
                self.launch(launch)
            if not self.changed:
                return
        raise SketchError("local types do not settle")  # unreachable: promotion only widens

    # ---- launches and statements ---------------------------------------------------------------
    def launch(self, launch: Launch) -> None:
        self.cur = launch
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.used: set[str] = set()
        self.scopes: list[dict[str, int]] = [{}]
        self.loop_vars: list[str] = [ax.var for ax in launch.grid]
        self.loops: list[tuple[For, int]] = []
        for ax in launch.grid:
            for e in (ax.start, ax.stop, ax.step):
                self.index(e)
        self.block(launch.body)
        order = [d.name for d in self.t.sketch.tensors]
        launch.reads = [n for n in order if n in self.reads]
        launch.writes = [n for n in order if n in self.writes]
        launch.symbols = [s.name for s in self.t.sketch.symbols if s.name in self.used]
        launch.tunables = [n for n in self.t.tunables if n in self.used]

    def block(self, body: list[Stmt]) -> None:
        for s in body:
            if isinstance(s, For):
                self.loop(s)
            elif isinstance(s, Alloc):
                self.alloc(s)
            elif isinstance(s, Assign):
                self.define(s, s.target, self.expr(s.value))
            elif isinstance(s, Load):
                value = self.access(s.src)
                if s.other is not None:
                    self.expr(s.other)
                self.reads.add(s.src.tensor)
                self.define(s, s.dst, value)
            elif isinstance(s, Store):
                self.store(s)
            elif isinstance(s, Barrier):  # counts on an element: a write of the counter
                self.access(s.counter)
                self.index(s.count)
                self.writes.add(s.counter.tensor)

    def loop(self, s: For) -> None:
        for e in (s.start, s.stop, s.step):
            if e is not None:
                self.index(e)
        if isinstance(s.step, Num) and s.step.value <= 0:
            raise _fail(f"loop {s.var!r} needs a positive step", s.step)
        self.scopes.append({})
        self.loop_vars.append(s.var)
        self.loops.append((s, len(self.scopes) - 1))
        self.t.carried[id(s)] = []
        self.block(s.body)
        self.loops.pop()
        self.loop_vars.pop()
        self.scopes.pop()

    def lookup(self, name: str) -> int | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def alloc(self, s: Alloc) -> None:
        shape = tuple(self.size(d) for d in s.shape)
        init = self.expr(s.init) if s.init is not None else None
        target = VType(shape, compute_dtype(s.dtype), exact=_const_exact(s.init))
        uid = self.lookup(s.target)
        if uid is not None and self.locals[uid].depth < len(self.scopes) - 1:
            old = self.locals[uid]
            if _squeezed(old.shape) != _squeezed(shape) or old.dtype != target.dtype:
                raise _fail(f"alloc of {s.target!r} inside a loop changes it from {old.vtype()} to "
                            f"{target}; a local carried across iterations keeps its type (use a new name)", s)
            self.define(s, s.target, init or target, uid=uid)
            self.t.definitions[id(s)] = Definition(init, self.locals[uid].vtype(), uid)
            return
        info = self.locals.get(id(s))
        if info is None:
            self.locals[id(s)] = info = _Local(s.target, shape, target.dtype, False, target.exact, fixed=True)
            self.changed = True
        info.depth = len(self.scopes) - 1
        self.scopes[-1][s.target] = id(s)
        self.t.definitions[id(s)] = Definition(init, info.vtype(), id(s))

    def define(self, s: Stmt, name: str, value: VType, uid: int | None = None) -> None:
        uid = self.lookup(name) if uid is None else uid
        if uid is None:
            uid = id(s)
            info = self.locals.get(uid)
            if info is None:
                self.locals[uid] = info = _Local(name, value.shape, value.dtype, value.weak, value.exact, False)
                self.changed = True
            else:
                self._join(info, value)
            info.depth = len(self.scopes) - 1
            self.scopes[-1][name] = uid
        else:
            info = self.locals[uid]
            if value.shape and _squeezed(value.shape) != _squeezed(info.shape):
                raise _fail(f"shape mismatch: assigning a {value} value to {name!r} of type {info.vtype()} "
                            "(sizes compared with tunables kept symbolic)", s)
            self._join(info, value)
            for loop, depth in self.loops:
                if info.depth < depth and name not in self.t.carried[id(loop)]:
                    self.t.carried[id(loop)].append(name)
        self.t.definitions[id(s)] = Definition(value, info.vtype(), uid)

    def _join(self, info: _Local, value: VType) -> None:
        before = (info.dtype, info.weak, info.exact)
        if not info.fixed:
            info.dtype, info.weak = promote([info.vtype(), value])
        info.exact = join_exact(info.exact, value.exact)
        if (info.dtype, info.weak, info.exact) != before:
            self.changed = True

    def store(self, s: Store) -> None:
        uid = self.lookup(s.src)
        if uid is None:
            raise _fail(f"{s.src!r} is used before it is defined", s)
        value = self.locals[uid].vtype()
        tile = self.access(s.dst)
        if value.shape and _squeezed(value.shape) != _squeezed(tile.shape):
            raise _fail(f"shape mismatch: storing {s.src!r} of type {value} into a {tile} tile of "
                        f"{s.dst.tensor!r} (sizes compared with tunables kept symbolic)", s)
        self.writes.add(s.dst.tensor)
        self.t.types[id(s)] = value

    # ---- accesses, sizes and names -------------------------------------------------------------
    def access(self, a: Access) -> VType:
        decl = self.tensors[a.tensor]
        self.touch(a.tensor)
        gathers: list[tuple[Size, ...]] = []
        tile: list[Size] = []
        for idx in a.indices:
            if isinstance(idx, Slice):
                self.index(idx.start)
                self.index(idx.stop)
                tile.append(self.size(BinOp("-", idx.stop, idx.start, idx.line, idx.column)))
            else:
                t = self.index(idx)
                if t.shape:
                    gathers.append(t.shape)
        lead = self.broadcast(gathers, a) if gathers else ()
        t = VType(tuple(lead) + tuple(tile), compute_dtype(decl.dtype),
                  exact=decl.dtype if decl.dtype in HALF else None)
        self.t.types[id(a)] = t
        return t

    def touch(self, tensor: str) -> None:
        for d in self.t.shapes[tensor]:
            self.used.update(d.names)

    def index(self, e: Expr) -> VType:
        t = self.expr(e)
        if t.kind != "int":
            raise _fail(f"an index or loop bound must be an integer, not {t}", e)
        return t

    def size(self, e: Expr) -> Size:
        size = size_of(e, self.values)
        allowed = self.symbols | set(self.t.tunables)
        bad = sorted(set(size.names) - allowed)
        if bad:
            what = {n: ("loop variable" if n in self.loop_vars else "local") for n in bad}
            names = ", ".join(f"{what[n]} {n!r}" for n in bad)
            raise _fail(f"tile extent {size.text} depends on {names}; an extent must be the same for "
                        "every iteration (symbols, parameters and numbers only)", e)
        self.used.update(size.names)
        return size

    def name(self, e: Name) -> VType:
        if e.id in self.tensors:  # the whole tensor, implicitly loaded
            decl = self.tensors[e.id]
            self.touch(e.id)
            self.reads.add(e.id)
            return VType(self.t.shapes[e.id], compute_dtype(decl.dtype),
                         exact=decl.dtype if decl.dtype in HALF else None)
        if e.id in self.loop_vars:
            return VType((), "i32")
        uid = self.lookup(e.id)
        if uid is not None:
            return self.locals[uid].vtype()
        if e.id in self.symbols:
            self.used.add(e.id)
            return VType((), "i32")
        if e.id in self.t.tunables:
            self.used.add(e.id)
            return VType((), "i32", weak=True)
        if e.id in self.t.params:
            return self.expr(self.t.params[e.id])
        raise _fail(f"undeclared name {e.id!r}", e)

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, e: Expr) -> VType:
        t = self._expr(e)
        self.t.types[id(e)] = t
        return t

    def _expr(self, e: Expr) -> VType:
        if isinstance(e, Num):
            return VType((), "f32" if isinstance(e.value, float) else "i32", weak=True,
                         exact=_const_exact(e))
        if isinstance(e, Name):
            return self.name(e)
        if isinstance(e, Neg):
            return self.elementwise("neg", [self.expr(e.operand)], e)
        if isinstance(e, BinOp):
            return self.elementwise(_BINOPS[e.op], [self.expr(e.left), self.expr(e.right)], e)
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Str):
            raise _fail("a string is only allowed as the first argument of apply", e)
        raise _fail("not an expression", e)

    def call(self, e: Call) -> VType:
        f = e.func
        if f == "iota":
            self.index(e.args[0])
            return VType((self.size(e.args[0]),), "i32")
        if f == "cast":
            v = self.expr(e.args[0])
            dt = e.args[1].id  # type: ignore[union-attr]  # the validator checked it is a dtype
            return VType(v.shape, compute_dtype(dt), exact=dt if dt in HALF else None)
        if f == "apply":
            args = [self.expr(a) for a in e.args[1:]]
            dtype, weak = promote(args)
            return VType(self.broadcast([a.shape for a in args], e), _float(dtype), weak)
        args = [self.expr(a) for a in e.args]
        if f in vocab.REDUCE_OPS:
            return self.reduce(e, args[0])
        if f in vocab.SCAN_OPS:
            a = args[0]
            return VType(a.shape, "i32" if a.dtype == "bool" else a.dtype)
        if f == "unsqueeze":
            a, ax = args[0], e.kwargs["axis"].value  # type: ignore[union-attr]
            ax %= a.rank + 1
            return VType(a.shape[:ax] + (ONE,) + a.shape[ax:], a.dtype, a.weak, a.exact)
        if f == "transpose":
            a = args[0]
            shape = a.shape[:-2] + (a.shape[-1], a.shape[-2]) if a.rank >= 2 else a.shape
            return VType(shape, a.dtype, a.weak, a.exact)
        if f == "matmul":
            return self.matmul(e, args[0], args[1])
        return self.elementwise(f, args, e)

    def elementwise(self, f: str, args: list[VType], node: Expr) -> VType:
        shape = self.broadcast([a.shape for a in args], node)
        operands = args[1:] if f == "where" else args
        dtype, weak = promote(operands)
        if f in BITWISE_OPS:
            if dtype in ("f32", "f64"):
                raise _fail(f"{f} takes integers or bools, not {dtype}", node)
            return VType(shape, dtype, weak)
        if f in _BOOL_OPS:
            dtype = "bool"
        elif f not in _KEEP_OPS and f != "where":
            dtype = _float(dtype)          # div, pow, atan2 and the transcendental ops
        elif dtype == "bool" and f not in ("max", "min", "where"):
            dtype = "i32"                  # arithmetic on bools counts
        exact = None
        if f in _EXACT_OPS:
            exact = operands[0].exact
            for a in operands[1:]:
                exact = join_exact(exact, a.exact)
        return VType(shape, dtype, weak, exact)

    def reduce(self, e: Call, a: VType) -> VType:
        f = e.func
        dtype = a.dtype
        if f == "reduce_mean":
            dtype = _float(dtype)
        elif f in ("reduce_argmax", "reduce_argmin"):
            dtype = "i32"
        elif dtype == "bool" and f in ("reduce_sum", "reduce_prod"):
            dtype = "i32"
        if a.rank == 0:
            return VType((), dtype, a.weak)
        ax = e.kwargs["axis"].value % a.rank  # type: ignore[union-attr]
        keep = e.kwargs.get("keepdim")
        shape = a.shape[:ax] + ((ONE,) if keep is not None and keep.value else ()) + a.shape[ax + 1:]  # type: ignore[union-attr]
        return VType(shape, dtype)

    def matmul(self, e: Call, a: VType, b: VType) -> VType:
        if a.shape[-1] != b.shape[-2]:
            raise _fail(f"matmul inner sizes differ: {a} x {b} (sizes compared with tunables kept symbolic)", e)
        batch = self.broadcast([a.shape[:-2], b.shape[:-2]], e)
        dtype, _ = promote([a, b])
        self.t.matmuls.append(e)
        return VType(tuple(batch) + (a.shape[-2], b.shape[-1]), "i32" if dtype == "bool" else dtype)

    def broadcast(self, shapes: list[tuple[Size, ...]], node: object) -> tuple[Size, ...]:
        rank = max((len(s) for s in shapes), default=0)
        out: list[Size] = []
        for i in range(rank):
            dim = ONE
            for s in shapes:
                k = len(s) - rank + i
                if k < 0 or s[k].is_one:
                    continue
                if not dim.is_one and s[k] != dim:
                    parts = " and ".join("[" + ", ".join(d.text for d in s) + "]" for s in shapes)
                    raise _fail(f"shape mismatch: {parts} do not broadcast "
                                "(sizes compared with tunables kept symbolic)", node)
                dim = s[k]
            out.append(dim)
        return tuple(out)


def _const_exact(e: Expr | None) -> str | None:
    """A constant small integer or infinity is exact in every float type."""
    if e is None:
        return "*"
    if isinstance(e, Neg):
        return _const_exact(e.operand)
    if isinstance(e, Num):
        v = e.value
        if v in (float("inf"),) or (float(v).is_integer() and abs(v) <= 2048):
            return "*"
    return None

