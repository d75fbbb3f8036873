"""Static checks of a parsed sketch; the first problem raises ``SketchError`` at its position.

A tensor named directly inside a computation stands for the whole tensor (an implicit load, meant
for small operands such as a weight vector ``w[N]``).

Checked: names are declared and defined before use (block scoping: a local made inside a loop body
ends with it); declarations are unique and use known dtypes and directions; hints use the
vocabulary; alloc roles and tiers are known; compute ops exist and get the right arguments; shapes
agree: tensor accesses have one index per dimension, a loaded or stored tile has the shape of the
local it moves (size-1 dimensions aside), elementwise operands broadcast, matmul inner sizes agree;
inputs are never stored to, temporaries are stored before they are loaded, and every output or
temporary is stored somewhere. A ``barrier`` stands directly in the body of a launch's innermost
grid loop, counts on an element of an i32 ``temp`` tensor that nothing loads or stores, and waits
for a parameter's number of programs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from akg_rag.errors import SketchError
from akg_rag.sketch import vocab
from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Load, Name, Neg, Num, Sketch, Slice, Stmt, Store,
    Str, TensorDecl,
)
from akg_rag.sketch.symbolic import Poly, const, is_one, show_shape, squeeze, to_poly

Shape = list[Poly]


def _fail(message: str, node: object) -> SketchError:
    return SketchError(message, getattr(node, "line", 0), getattr(node, "column", 0))


@dataclass
class _Scope:
    locals: dict[str, Shape | None] = field(default_factory=dict)
    loop_vars: set[str] = field(default_factory=set)


class _Validator:
    def __init__(self, sk: Sketch) -> None:
        self.sk = sk
        self.symbols = {s.name for s in sk.symbols}
        self.params: dict[str, int | float | None] = {}
        self.tensors: dict[str, TensorDecl] = {}
        self.stored: set[str] = set()
        self.counters: set[str] = set()   # temps a barrier counts on
        self.moved: set[str] = set()      # tensors loaded or stored
        self.scopes: list[_Scope] = [_Scope()]
        self.assigned = _assigned_names(sk.body)

    # ---- declarations ---------------------------------------------------------------------------
    def declarations(self) -> None:
        seen: set[str] = set()
        for decl in [*self.sk.symbols, *self.sk.params, *self.sk.tensors]:
            if decl.name in seen:
                raise _fail(f"{decl.name!r} is declared twice", decl)
            seen.add(decl.name)
        for p in self.sk.params:
            self.scalar(p.value, allow_locals=False)
            self.params[p.name] = p.value.value if isinstance(p.value, Num) else None
        for t in self.sk.tensors:
            if t.dtype not in vocab.DTYPES:
                raise _fail(f"unknown dtype {t.dtype!r} of tensor {t.name!r}; allowed: {', '.join(vocab.DTYPES)}", t)
            if t.direction not in vocab.DIRECTIONS:
                raise _fail(f"unknown direction {t.direction!r} of tensor {t.name!r}; "
                            f"allowed: {', '.join(vocab.DIRECTIONS)}", t)
            for d in t.shape:
                self.scalar(d, allow_locals=False)
            self.tensors[t.name] = t

    # ---- names and scalars ------------------------------------------------------------------------
    def lookup(self, name: str) -> tuple[bool, Shape | None]:
        for scope in reversed(self.scopes):
            if name in scope.locals:
                return True, scope.locals[name]
        return False, None

    def is_loop_var(self, name: str) -> bool:
        return any(name in s.loop_vars for s in self.scopes)

    def unknown(self, node: Name) -> SketchError:
        if node.id in self.assigned:
            return _fail(f"{node.id!r} is used before it is defined", node)
        return _fail(f"undeclared name {node.id!r}", node)

    def scalar(self, e: Expr, allow_locals: bool = True) -> None:
        """An index, size or range expression: numbers, symbols, params, loop variables (and, for
        gather-style indices, locals)."""
        if isinstance(e, Num):
            return
        if isinstance(e, Name):
            if e.id in self.symbols or e.id in self.params or self.is_loop_var(e.id):
                return
            if e.id in self.tensors:
                raise _fail(f"tensor {e.id!r} used as a number; index it or load it", e)
            found, _ = self.lookup(e.id)
            if found and allow_locals:
                return
            raise self.unknown(e)
        if isinstance(e, Neg):
            self.scalar(e.operand, allow_locals)
        elif isinstance(e, BinOp):
            self.scalar(e.left, allow_locals)
            self.scalar(e.right, allow_locals)
        else:
            raise _fail("only numbers, symbols, parameters and loop variables may appear here", e)

    def poly(self, e: Expr) -> Poly:
        known = {k: v for k, v in self.params.items() if v is not None}
        return to_poly(e, known)

    # ---- values ---------------------------------------------------------------------------------
    def value(self, e: Expr) -> Shape | None:
        """Shape of a compute expression ([] for scalars, None when unknown)."""
        if isinstance(e, Num):
            return []
        if isinstance(e, Str):
            raise _fail("a string is only allowed as the first argument of apply", e)
        if isinstance(e, Name):
            if e.id in self.tensors:
                # the whole tensor, implicitly loaded (meant for small weights such as w[N])
                return [self.poly(d) for d in self.tensors[e.id].shape]
            if e.id in self.symbols or e.id in self.params or self.is_loop_var(e.id):
                return []
            found, shape = self.lookup(e.id)
            if not found:
                raise self.unknown(e)
            return shape
        if isinstance(e, Neg):
            return self.value(e.operand)
        if isinstance(e, BinOp):
            return self.broadcast([self.value(e.left), self.value(e.right)], e)
        if isinstance(e, Call):
            return self.call(e)
        raise _fail("not an expression", e)

    def broadcast(self, shapes: list[Shape | None], node: object) -> Shape | None:
        if any(s is None for s in shapes):
            return None
        rank = max(len(s) for s in shapes)  # type: ignore[arg-type]
        out: Shape = []
        for i in range(rank):
            dim = const(1)
            for s in shapes:
                k = len(s) - rank + i  # type: ignore[arg-type]
                if k < 0:
                    continue
                d = s[k]  # type: ignore[index]
                if is_one(d):
                    continue
                if not is_one(dim) and d != dim:
                    parts = " and ".join(show_shape(s) for s in shapes)  # type: ignore[arg-type]
                    raise _fail(f"shape mismatch: {parts} do not broadcast", node)
                dim = d
            out.append(dim)
        return out

    def call(self, e: Call) -> Shape | None:
        sig = vocab.OP_SIGNATURES.get(e.func)
        if sig is None:
            raise _fail(f"unknown compute op {e.func!r}; allowed: {', '.join(vocab.COMPUTE_OPS)}", e)
        lo, hi, allowed, required = sig
        if not lo <= len(e.args) <= hi:
            count = str(lo) if lo == hi else f"{lo} to {hi}"
            raise _fail(f"{e.func} takes {count} positional argument(s), got {len(e.args)}", e)
        for k in e.kwargs:
            if k not in allowed:
                raise _fail(f"{e.func} has no keyword {k!r}", e)
        for k in required:
            if k not in e.kwargs:
                raise _fail(f"{e.func} needs {k}=", e)
        if e.func == "cast":
            dtype = e.args[1]
            if not isinstance(dtype, Name) or dtype.id not in vocab.DTYPES:
                raise _fail(f"cast needs a dtype as second argument ({', '.join(vocab.DTYPES)})", e)
            return self.value(e.args[0])
        if e.func == "apply":
            if not isinstance(e.args[0], Str):
                raise _fail("apply needs the function name as a string first argument", e)
            return self.broadcast([self.value(a) for a in e.args[1:]], e)
        if e.func == "iota":
            self.scalar(e.args[0], allow_locals=False)
            return [self.poly(e.args[0])]
        shapes = [self.value(a) for a in e.args]
        if e.func == "unsqueeze":
            return self.unsqueeze(e, shapes[0])
        if e.func in vocab.REDUCE_OPS or e.func in vocab.SCAN_OPS:
            return self.reduce(e, shapes[0])
        if e.func == "matmul":
            return self.matmul(e, shapes[0], shapes[1])
        if e.func == "transpose":
            s = shapes[0]
            return None if s is None else (s[:-2] + [s[-1], s[-2]] if len(s) >= 2 else s)
        return self.broadcast(shapes, e)

    def reduce(self, e: Call, shape: Shape | None) -> Shape | None:
        axis = e.kwargs["axis"]
        if not isinstance(axis, Num) or not isinstance(axis.value, int):
            raise _fail(f"{e.func} axis must be an integer literal", axis)
        if shape is None:
            return None
        rank = len(shape)
        ax = axis.value
        if not -rank <= ax < max(rank, 1):
            raise _fail(f"{e.func} axis {ax} is out of range for a rank-{rank} value", axis)
        if e.func in vocab.SCAN_OPS:
            rev = e.kwargs.get("reverse")
            if rev is not None and not (isinstance(rev, Num) and rev.value in (0, 1)):
                raise _fail("reverse must be 0 or 1", rev)
            return shape
        if rank == 0:
            return shape
        ax %= rank
        keep = e.kwargs.get("keepdim")
        if keep is not None and not isinstance(keep, Num):
            raise _fail("keepdim must be 0 or 1", keep)
        if keep is not None and keep.value:
            return shape[:ax] + [const(1)] + shape[ax + 1:]
        return shape[:ax] + shape[ax + 1:]

    def unsqueeze(self, e: Call, shape: Shape | None) -> Shape | None:
        axis = e.kwargs["axis"]
        if not isinstance(axis, Num) or not isinstance(axis.value, int):
            raise _fail("unsqueeze axis must be an integer literal", axis)
        if shape is None:
            return None
        ax = axis.value
        if not -len(shape) - 1 <= ax <= len(shape):
            raise _fail(f"unsqueeze axis {ax} is out of range for a rank-{len(shape)} value", axis)
        ax %= len(shape) + 1
        return shape[:ax] + [const(1)] + shape[ax:]

    def matmul(self, e: Call, a: Shape | None, b: Shape | None) -> Shape | None:
        if a is None or b is None:
            return None
        if len(a) < 2 or len(b) < 2:
            raise _fail(f"matmul needs tiles of rank >= 2, got {show_shape(a)} and {show_shape(b)}", e)
        if a[-1] != b[-2]:
            raise _fail(f"matmul inner sizes differ: {show_shape(a)} x {show_shape(b)}", e)
        batch = self.broadcast([a[:-2], b[:-2]], e) or []
        return batch + [a[-2], b[-1]]

    # ---- statements -------------------------------------------------------------------------------
    def define(self, name: str, shape: Shape | None, node: object) -> None:
        if name in self.tensors or name in self.symbols or name in self.params:
            raise _fail(f"cannot assign to declared name {name!r}", node)
        if self.is_loop_var(name):
            raise _fail(f"cannot assign to loop variable {name!r}", node)
        for scope in reversed(self.scopes):
            if name in scope.locals:
                scope.locals[name] = shape if scope.locals[name] is None else scope.locals[name]
                return
        self.scopes[-1].locals[name] = shape

    def block(self, body: list[Stmt]) -> None:
        for s in body:
            self.statement(s)

    def statement(self, s: Stmt) -> None:
        if isinstance(s, For):
            self.loop(s)
        elif isinstance(s, Alloc):
            self.alloc(s)
        elif isinstance(s, Assign):
            self.assign(s)
        elif isinstance(s, Load):
            self.load(s)
        elif isinstance(s, Store):
            self.store(s)
        elif isinstance(s, Barrier):
            self.barrier(s)

    def loop(self, s: For) -> None:
        for h in s.hints:
            if h.kind not in vocab.HINT_KINDS:
                raise _fail(f"unknown hint kind {h.kind!r}; allowed: {', '.join(vocab.HINT_KINDS)}", h)
            if h.context not in vocab.HINT_CONTEXTS:
                raise _fail(f"unknown hint context {h.context!r}; allowed: {', '.join(vocab.HINT_CONTEXTS)}", h)
        for e in (s.start, s.stop, s.step):
            if e is not None:
                self.scalar(e, allow_locals=False)
        known = (s.var in self.symbols or s.var in self.params or s.var in self.tensors
                 or self.is_loop_var(s.var) or self.lookup(s.var)[0])
        if known:
            raise _fail(f"loop variable {s.var!r} shadows an existing name", s)
        self.scopes.append(_Scope(loop_vars={s.var}))
        self.block(s.body)
        self.scopes.pop()

    def alloc(self, s: Alloc) -> None:
        if s.dtype not in vocab.DTYPES:
            raise _fail(f"unknown dtype {s.dtype!r}; allowed: {', '.join(vocab.DTYPES)}", s)
        if s.role is not None and s.role not in vocab.ALLOC_ROLES:
            raise _fail(f"unknown alloc hint {s.role!r}; allowed: {', '.join(vocab.ALLOC_ROLES)}", s)
        if s.tier is not None and s.tier not in vocab.MEMORY_TIERS:
            raise _fail(f"unknown memory tier {s.tier!r}; allowed: {', '.join(vocab.MEMORY_TIERS)}", s)
        for d in s.shape:
            self.scalar(d, allow_locals=False)
        if s.init is not None:
            self.scalar(s.init, allow_locals=False)
        self.define(s.target, [self.poly(d) for d in s.shape], s)
        # a fresh alloc replaces any earlier shape of the same name in the current scope
        self.scopes[-1].locals[s.target] = [self.poly(d) for d in s.shape]

    def assign(self, s: Assign) -> None:
        shape = self.value(s.value)
        found, target = self.lookup(s.target)
        if found and target is not None and shape is not None and shape and squeeze(shape) != squeeze(target):
            raise _fail(f"shape mismatch: assigning a {show_shape(shape)} value to {s.target!r} "
                        f"of shape {show_shape(target)}", s)
        self.define(s.target, shape, s)

    def access(self, a: Access) -> Shape:
        decl = self.tensors.get(a.tensor)
        if decl is None:
            found, _ = self.lookup(a.tensor)
            what = "a local, not a tensor" if found else "not a declared tensor"
            raise _fail(f"{a.tensor!r} is {what}", a)
        if len(a.indices) != len(decl.shape):
            raise _fail(f"tensor {a.tensor!r} has rank {len(decl.shape)} but is indexed with "
                        f"{len(a.indices)} indices", a)
        tile: Shape = []
        gathers: list[Shape | None] = []
        for idx in a.indices:
            if isinstance(idx, Slice):
                self.scalar(idx.start)
                self.scalar(idx.stop)
                tile.append(_sub(self.poly(idx.stop), self.poly(idx.start)))
            else:
                gathers.append(self.index_value(idx))
        # gather indices (int tiles) broadcast together; their shape comes first, then the slices
        lead = self.broadcast(gathers, a) if gathers else []
        return (lead or []) + tile

    def index_value(self, e: Expr) -> Shape | None:
        """Shape of one non-slice index: [] for a scalar expression, a tile shape for a gather."""
        if isinstance(e, Name) and e.id in self.tensors:
            raise _fail(f"tensor {e.id!r} used as an index; load it first", e)
        if isinstance(e, (Num, Name, Neg, BinOp)) and not _has_call(e):
            try:
                self.scalar(e)
                return self.value(e)
            except SketchError:
                pass
        return self.value(e)

    def barrier(self, s: Barrier) -> None:
        decl = self.tensors.get(s.counter.tensor)
        if decl is None or decl.direction != "temp" or decl.dtype != "i32":
            raise _fail(f"a barrier counts on an i32 temp tensor; {s.counter.tensor!r} is not one", s)
        if any(isinstance(i, Slice) for i in s.counter.indices) or self.access(s.counter):
            raise _fail(f"a barrier counts on one element of {s.counter.tensor!r}: scalar indices only", s)
        if not (isinstance(s.count, Name) and s.count.id in self.params):
            raise _fail("a barrier's count must be a parameter (a backend may lower it to fit the machine)", s)
        self.counters.add(decl.name)
        self.stored.add(decl.name)

    def load(self, s: Load) -> None:
        tile = self.access(s.src)
        self.moved.add(s.src.tensor)
        if s.other is not None:
            self.scalar(s.other, allow_locals=False)
        decl = self.tensors[s.src.tensor]
        if decl.direction == "temp" and decl.name not in self.stored:
            raise _fail(f"temporary tensor {decl.name!r} is loaded before anything is stored to it", s)
        found, shape = self.lookup(s.dst)
        if found and shape is not None and squeeze(shape) != squeeze(tile):
            raise _fail(f"shape mismatch: loading a {show_shape(tile)} tile of {decl.name!r} into "
                        f"{s.dst!r} of shape {show_shape(shape)}", s)
        self.define(s.dst, tile, s)

    def store(self, s: Store) -> None:
        decl = self.tensors.get(s.dst.tensor)
        if decl is not None and decl.direction == "in":
            raise _fail(f"tensor {decl.name!r} is an input (in) and cannot be stored to", s)
        self.moved.add(s.dst.tensor)
        found, shape = self.lookup(s.src)
        if not found:
            raise self.unknown(Name(s.src, s.line, s.column))
        tile = self.access(s.dst)
        if shape is not None and shape and squeeze(shape) != squeeze(tile):
            raise _fail(f"shape mismatch: storing {s.src!r} of shape {show_shape(shape)} into a "
                        f"{show_shape(tile)} tile of {s.dst.tensor!r}", s)
        self.stored.add(s.dst.tensor)

    def finish(self) -> None:
        for t in self.sk.tensors:
            if t.name in self.counters and t.name in self.moved:
                raise _fail(f"tensor {t.name!r} is a barrier's counter and cannot be loaded or stored", t)
            if t.direction in ("out", "inout", "temp") and t.name not in self.stored:
                raise _fail(f"{t.direction} tensor {t.name!r} is never stored", t)


def _sub(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) - c
    return {m: c for m, c in out.items() if c != 0}


def _has_call(e: Expr) -> bool:
    if isinstance(e, Call):
        return True
    if isinstance(e, BinOp):
        return _has_call(e.left) or _has_call(e.right)
    if isinstance(e, Neg):
        return _has_call(e.operand)
    return False


def _assigned_names(body: list[Stmt]) -> set[str]:
    names: set[str] = set()
    for s in body:
        if isinstance(s, (Alloc, Assign)):
            names.add(s.target)
        elif isinstance(s, Load):
            names.add(s.dst)
        elif isinstance(s, For):
            names |= _assigned_names(s.body)
    return names


def barrier_statements(body: list[Stmt]):  # noqa: ANN201
    """Every barrier in ``body``, loops included."""
    for s in body:
        if isinstance(s, Barrier):
            yield s
        elif isinstance(s, For):
            yield from barrier_statements(s.body)


def _check_barrier_places(sketch: Sketch) -> None:
    """Every barrier stands directly in the body of a launch's innermost grid loop."""
    allowed: set[int] = set()
    for s in sketch.body:
        while isinstance(s, For) and len(s.body) == 1 and isinstance(s.body[0], For) \
                and any(h.kind == "parallel" for h in s.body[0].hints):
            s = s.body[0]
        if isinstance(s, For) and any(h.kind == "parallel" for h in s.hints):
            allowed |= {id(b) for b in s.body if isinstance(b, Barrier)}
    for b in barrier_statements(sketch.body):
        if id(b) not in allowed:
            raise _fail("a barrier must stand directly in the body of a launch's innermost grid loop", b)


def validate_sketch(sketch: Sketch) -> None:
    """Raise ``SketchError`` at the first problem in ``sketch`` (see the module docstring)."""
    _check_barrier_places(sketch)
    v = _Validator(sketch)
    v.declarations()
    v.block(sketch.body)
    v.finish()
