"""A reference interpreter of Unified Sketches in torch on CPU: the oracle of the lowering tests.

``run_sketch(text, tensors, params)`` executes a sketch exactly as docs/lowering.md ("Kernel
semantics of a sketch") defines it, one grid point at a time:

* each top-level statement is a launch: a ``parallel`` loop whose directly nested ``parallel``
  loops (each the only statement of its parent's body) join its grid; launches run in order;
* loads read ``other`` (default 0) where an index lies outside the tensor, stores skip such
  elements; gathers take int tiles as indices; tensors are read and written through their strides,
  so views work and outputs are written in place;
* symbols bind from the argument shapes (``ValueError`` on disagreement); ``temp`` tensors are
  allocated here, filled with NaN (or a sentinel integer) so that reading an unwritten element shows.

It also checks what a parallel backend would get wrong silently: an element one grid point wrote
and another grid point of the same launch reads or writes is a race (``SketchError``). Tiles are
never padded here (a backend's padding is invisible by contract). Sizes are meant to be tiny.

A launch whose body holds ``barrier`` statements runs in phases: every grid point runs up to its
first barrier (its locals kept), then every one up to the next, and so on. At each barrier the
points naming the same counter element form a group, which must hold exactly the barrier's count
of points, be a run of consecutive grid points, and be the same groups at every barrier of the
launch (else a GPU would hang, or could: ``SketchError``). What a point stored before a barrier,
the other points of its group may read or overwrite after it; a point of another group may not.
"""

from __future__ import annotations

from typing import Any

import torch

from akg_rag.errors import SketchError
from akg_rag.lower import interp_ops as ops
from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Load, Name, Neg, Num, Sketch, Slice, Stmt, Store, Str,
)

_UNWRITTEN_INT = -(2 ** 40)  # what an unwritten element of an integer temp reads


def _fail(message: str, node: object) -> SketchError:
    return SketchError(message, getattr(node, "line", 0), getattr(node, "column", 0))


class _Interp:
    def __init__(self, sk: Sketch, tensors: dict[str, torch.Tensor], params: dict | None) -> None:
        self.sk = sk
        self.globals: dict[str, Any] = {}
        self.tensors: dict[str, torch.Tensor] = {}
        self.scopes: list[dict[str, Any]] = []
        self.writers: dict[str, torch.Tensor] = {}  # per launch: id of the grid point that wrote
        self.published: dict[str, torch.Tensor] = {}  # per launch: group of the writer before a barrier
        self.point = -1
        self.group = -1  # the current point's barrier group (its first point), -1 before any barrier
        self._bind(tensors, dict(params or {}))

    # ---- binding ---------------------------------------------------------------------------------
    def _bind(self, tensors: dict[str, torch.Tensor], overrides: dict) -> None:
        unknown = set(overrides) - {p.name for p in self.sk.params}
        if unknown:
            raise ValueError(f"params {sorted(unknown)} are not declared by sketch {self.sk.name!r}")
        for p in self.sk.params:
            self.globals[p.name] = overrides[p.name] if p.name in overrides else self.scalar(p.value)
        symbols = {s.name for s in self.sk.symbols}
        bound: dict[str, int] = {}
        for decl in self.sk.tensors:
            if decl.direction == "temp":
                continue
            if decl.name not in tensors:
                raise ValueError(f"sketch {self.sk.name!r} needs tensor {decl.name!r}")
            t = tensors[decl.name]
            if t.dim() == 0 and len(decl.shape) == 1:
                t = t.view(1)  # a 0-d tensor is declared [1]
            if t.dim() != len(decl.shape):
                raise ValueError(f"tensor {decl.name!r} has rank {t.dim()}, declared {len(decl.shape)}")
            for d, size in zip(decl.shape, t.shape):
                if isinstance(d, Name) and d.id in symbols:
                    if bound.setdefault(d.id, size) != size:
                        raise ValueError(f"symbol {d.id} is {bound[d.id]} and {size} (tensor {decl.name!r})")
            self.tensors[decl.name] = t
        missing = symbols - set(bound)
        if missing:
            raise ValueError(f"symbols {sorted(missing)} are not a whole dimension of any argument")
        self.globals.update(bound)
        for decl in self.sk.tensors:
            shape = [int(self.scalar(d)) for d in decl.shape]
            if decl.direction == "temp":
                dt = ops.STORAGE_DTYPE[decl.dtype]
                fill = float("nan") if dt.is_floating_point else (
                    False if dt == torch.bool else max(_UNWRITTEN_INT, torch.iinfo(dt).min))
                self.tensors[decl.name] = torch.full(shape, fill, dtype=dt)
            elif list(self.tensors[decl.name].shape) != shape:
                raise ValueError(f"tensor {decl.name!r} has shape {list(self.tensors[decl.name].shape)}, "
                                 f"declared {shape}")

    # ---- names -----------------------------------------------------------------------------------
    def lookup(self, node: Name) -> Any:
        for scope in reversed(self.scopes):
            if node.id in scope:
                return scope[node.id]
        if node.id in self.globals:
            return self.globals[node.id]
        if node.id in self.tensors:
            return ops.upcast(self.tensors[node.id])  # a whole tensor named in a computation
        raise _fail(f"undefined name {node.id!r}", node)

    def define(self, name: str, value: Any) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value  # a loop-carried value defined before the loop
                return
        self.scopes[-1][name] = value

    # ---- expressions -----------------------------------------------------------------------------
    def scalar(self, e: Expr) -> Any:
        v = self.eval(e)
        if isinstance(v, torch.Tensor) and v.dim() == 0:
            return v.item()
        return v

    def eval(self, e: Expr) -> Any:
        if isinstance(e, Num):
            return e.value
        if isinstance(e, Name):
            return self.lookup(e)
        if isinstance(e, Neg):
            v = self.eval(e.operand)
            return -v
        if isinstance(e, BinOp):
            return ops.infix(e.op, self.eval(e.left), self.eval(e.right))
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Str):
            raise _fail("a string is only allowed as the first argument of apply", e)
        raise _fail("not an expression", e)

    def call(self, e: Call) -> Any:
        f = e.func
        if f == "iota":
            return torch.arange(int(self.scalar(e.args[0])), dtype=torch.int64)
        if f == "cast":
            return ops.cast(self.eval(e.args[0]), e.args[1].id)  # type: ignore[union-attr]
        if f == "apply":
            name = e.args[0].value  # type: ignore[union-attr]
            if name not in ops.APPLY:
                raise _fail(f"apply({name!r}) is unknown to the interpreter; known: {', '.join(ops.APPLY)}", e)
            return ops.APPLY[name](*[self.eval(a) for a in e.args[1:]])
        args = [self.eval(a) for a in e.args]
        kw = {k: self.scalar(v) for k, v in e.kwargs.items()}
        if f == "unsqueeze":
            return ops.as_tensor(args[0]).unsqueeze(int(kw["axis"]))
        if f in ops.REDUCE:
            return ops.REDUCE[f](args[0], int(kw["axis"]), bool(kw.get("keepdim", 0)))
        if f in ops.SCAN:
            t = ops.as_tensor(args[0])
            if t.dim() == 0:
                return t
            ax = int(kw["axis"])
            if kw.get("reverse", 0):
                return ops.SCAN[f](t.flip(ax), ax).flip(ax)
            return ops.SCAN[f](t, ax)
        if f == "where":
            return ops.where(*args)
        if f in ops.UNARY:
            return ops.UNARY[f](args[0])
        if f in ops.BINARY:
            return ops.BINARY[f](args[0], args[1])
        raise _fail(f"unknown compute op {f!r}", e)

    # ---- memory ----------------------------------------------------------------------------------
    def indices(self, a: Access) -> tuple[torch.Tensor, list[torch.Tensor], torch.Tensor]:
        """The tensor, one broadcast index tensor per dimension, and the in-bounds mask."""
        t = self.tensors[a.tensor]
        gathers: list[torch.Tensor] = []
        parts: list[tuple[str, Any]] = []
        for idx in a.indices:
            if isinstance(idx, Slice):
                lo, hi = int(self.scalar(idx.start)), int(self.scalar(idx.stop))
                parts.append(("slice", torch.arange(lo, hi, dtype=torch.int64)))
            else:
                v = ops.as_tensor(self.eval(idx))
                if v.is_floating_point() or v.dtype == torch.bool:
                    raise _fail(f"index of {a.tensor!r} is not an integer ({v.dtype})", idx)
                parts.append(("gather", v.to(torch.int64)))
                if v.dim():
                    gathers.append(v)
        lead = list(torch.broadcast_shapes(*[g.shape for g in gathers])) if gathers else []
        slices = [p[1].numel() for p in parts if p[0] == "slice"]
        shape = lead + slices
        full: list[torch.Tensor] = []
        k = len(lead)
        for kind, v in parts:
            if kind == "slice":
                view = [1] * len(shape)
                view[k] = v.numel()
                full.append(v.view(view).expand(shape))
                k += 1
            else:
                g = v.view(list(v.shape) + [1] * len(slices)) if v.dim() else v
                full.append(g.expand(shape))
        mask = torch.ones(shape, dtype=torch.bool)
        for d, ix in enumerate(full):
            mask &= (ix >= 0) & (ix < t.shape[d])
        return t, full, mask

    def load(self, s: Load) -> None:
        t, idx, mask = self.indices(s.src)
        safe = [torch.where(mask, ix, 0) for ix in idx]
        vals = ops.upcast(t[tuple(safe)] if t.numel() else torch.zeros(mask.shape, dtype=t.dtype))
        self.check_race(s.src.tensor, safe, mask, s, write=False)
        other = 0 if s.other is None else self.scalar(s.other)
        self.define(s.dst, torch.where(mask, vals, ops.as_tensor(other).to(vals.dtype)))

    def store(self, s: Store) -> None:
        t, idx, mask = self.indices(s.dst)
        v = ops.as_tensor(self.lookup(Name(s.src, s.line, s.column)))
        shape = list(mask.shape)
        if list(v.shape) != shape:
            if [d for d in v.shape if d != 1] == [d for d in shape if d != 1]:
                v = v.reshape(shape)
            else:
                try:
                    v = v.expand(shape) if v.numel() == 1 else torch.broadcast_to(v, shape)
                except RuntimeError:
                    raise _fail(f"storing a {list(v.shape)} value into a {shape} tile of {s.dst.tensor!r}", s)
        sel = [ix[mask] for ix in idx]
        self.check_race(s.dst.tensor, sel, None, s, write=True)
        t[tuple(sel)] = v[mask].to(t.dtype)

    def check_race(self, name: str, idx: list[torch.Tensor], mask: torch.Tensor | None, node: object,
                   write: bool) -> None:
        """Raise on an element written by another grid point of this launch (see module docstring)."""
        w = self.writers.get(name)
        if w is None:
            if not write:
                return
            w = self.writers[name] = torch.full(self.tensors[name].shape, -1, dtype=torch.int64)
        who = w[tuple(idx)] if w.dim() else w
        if mask is not None:
            who = who[mask]
        what = "writes" if write else "reads"
        if ((who != -1) & (who != self.point)).any():
            raise _fail(f"race: grid point {self.point} {what} an element of {name!r} that another grid "
                        f"point of the same launch wrote", node)
        pub = self.published.get(name)
        if pub is not None:
            pg = pub[tuple(idx)] if pub.dim() else pub
            if mask is not None:
                pg = pg[mask]
            if ((pg != -1) & (pg != self.group)).any():
                raise _fail(f"race: grid point {self.point} {what} an element of {name!r} that a grid point "
                            f"outside its barrier group wrote", node)
        if write:
            w[tuple(idx)] = self.point

    # ---- statements ------------------------------------------------------------------------------
    def block(self, body: list[Stmt]) -> None:
        for s in body:
            self.statement(s)

    def statement(self, s: Stmt) -> None:
        if isinstance(s, For):
            self.loop(s, s.body)
        elif isinstance(s, Alloc):
            self.alloc(s)
        elif isinstance(s, Assign):
            self.define(s.target, self.eval(s.value))
        elif isinstance(s, Load):
            self.load(s)
        elif isinstance(s, Store):
            self.store(s)

    def range_of(self, s: For) -> range:
        start = 0 if s.start is None else int(self.scalar(s.start))
        step = 1 if s.step is None else int(self.scalar(s.step))
        return range(start, int(self.scalar(s.stop)), step)

    def loop(self, s: For, body: list[Stmt], grid: bool = False, points: list | None = None) -> None:
        for i in self.range_of(s):
            self.scopes.append({s.var: i})
            if grid and _grid_child(s) is not None:
                inner = _grid_child(s)
                self.loop(inner, inner.body, grid=True, points=points)  # type: ignore[union-attr]
            elif points is not None:  # a launch with barriers: only collect the grid point
                points.append([dict(sc) for sc in self.scopes])
            else:
                if grid:
                    self.point += 1
                self.block(body)
            self.scopes.pop()

    def phased(self, s: For) -> None:
        """Run a launch with barriers phase by phase (see the module docstring)."""
        inner = _innermost(s)
        points: list[list[dict[str, Any]]] = []
        self.loop(s, s.body, grid=True, points=points)
        segments: list[list[Stmt]] = [[]]
        barriers: list[Barrier] = []
        for st in inner.body:
            if isinstance(st, Barrier):
                barriers.append(st)
                segments.append([])
            else:
                segments[-1].append(st)
        groups: list[int] | None = None
        saved = self.scopes
        for k, segment in enumerate(segments):
            if k:
                groups = self.barrier(barriers[k - 1], points, groups)
            for p, scopes in enumerate(points):
                self.scopes, self.point = scopes, p
                self.group = -1 if groups is None else groups[p]
                self.block(segment)
        self.scopes = saved

    def barrier(self, b: Barrier, points: list, before: list[int] | None) -> list[int]:
        """The group (its first point) of every point at barrier ``b``; the writes so far published
        to their writers' groups."""
        keys, counts = [], []
        for scopes in points:
            self.scopes = scopes
            keys.append(tuple(int(self.scalar(i)) for i in b.counter.indices))
            counts.append(int(self.scalar(b.count)))
        shape = tuple(self.tensors[b.counter.tensor].shape)
        members: dict[tuple, list[int]] = {}
        for p, key in enumerate(keys):
            if any(not 0 <= k < n for k, n in zip(key, shape)):
                raise _fail(f"grid point {p} counts on {b.counter.tensor}{list(key)}, outside its shape "
                            f"{list(shape)}", b)
            members.setdefault(key, []).append(p)
        groups = [0] * len(points)
        where = f"barrier({b.counter.tensor}[...], {counts[0] if counts else '?'})"
        for key, ps in members.items():
            at = f"{b.counter.tensor}[{', '.join(map(str, key))}]"
            if any(counts[p] != len(ps) for p in ps):
                raise _fail(f"{where}: {len(ps)} grid points count on {at}, which waits for "
                            f"{counts[ps[0]]}: the launch would hang", b)
            if ps[-1] - ps[0] != len(ps) - 1:
                raise _fail(f"{where}: the grid points counting on {at} are not consecutive "
                            f"({ps[:4]}...): a GPU running some of them at a time could hang", b)
            for p in ps:
                groups[p] = ps[0]
        if before is not None and groups != before:
            raise _fail(f"{where}: groups differ from the launch's earlier barrier's", b)
        label = torch.tensor(groups, dtype=torch.int64)
        for name, w in self.writers.items():
            hit = w >= 0
            if hit.any():
                pub = self.published.setdefault(name, torch.full(w.shape, -1, dtype=torch.int64))
                pub[hit] = label[w[hit]]
                w[hit] = -1
        return groups

    def alloc(self, s: Alloc) -> None:
        shape = [int(self.scalar(d)) for d in s.shape]
        dt = ops.COMPUTE_DTYPE[s.dtype]
        if s.init is not None:
            value = torch.full(shape, self.scalar(s.init), dtype=dt)
        elif dt.is_floating_point:
            value = torch.full(shape, float("nan"), dtype=dt)  # reading it before writing shows
        else:
            value = torch.zeros(shape, dtype=dt)
        self.define(s.target, value)

    def run(self) -> None:
        for s in self.sk.body:
            if not isinstance(s, For) or not any(h.kind == "parallel" for h in s.hints):
                raise _fail("a top-level statement must be a parallel loop (one kernel launch)", s)
            self.writers, self.published = {}, {}
            self.point, self.group = -1, -1
            if any(isinstance(b, Barrier) for b in _innermost(s).body):
                self.phased(s)
            else:
                self.loop(s, s.body, grid=True)


def _grid_child(s: For) -> For | None:
    """The parallel loop that joins ``s``'s grid: the only statement of its body."""
    if len(s.body) == 1 and isinstance(s.body[0], For) and any(h.kind == "parallel" for h in s.body[0].hints):
        return s.body[0]
    return None


def _innermost(s: For) -> For:
    while _grid_child(s) is not None:
        s = _grid_child(s)  # type: ignore[assignment]
    return s


def run_sketch(sketch: str | Sketch, tensors: dict[str, torch.Tensor], params: dict | None = None) -> None:
    """Execute ``sketch`` (text or a parsed tree) on ``tensors`` (by declared name), writing its
    outputs in place; ``params`` overrides declared parameters (tunables). Raises ``SketchError``
    for a sketch that does not validate or races, ``ValueError`` for arguments that do not fit."""
    from akg_rag.sketch import check_sketch, validate_sketch

    if isinstance(sketch, str):
        sk = check_sketch(sketch)
    else:
        validate_sketch(sketch)
        sk = sketch
    with torch.no_grad():
        _Interp(sk, tensors, params).run()
