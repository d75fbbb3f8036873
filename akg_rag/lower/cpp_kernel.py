"""Statements and launches of a sketch as C++ (the body of the generated host function).

Each top-level ``for`` (marked ``parallel``) is one launch: directly nested parallel loops join its
grid, which becomes one ``#pragma omp for schedule(static)`` over the flattened grid inside an
``omp parallel`` region. Tiles are declared once per thread at the top of that region (on the
stack when their size is a compile-time constant and small, see ``akg::Tile``), so the grid loop
itself allocates nothing. Loops inside a launch are sequential C++ loops; a local defined before
a loop and assigned inside it is simply the same C++ variable, which carries the value.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from akg_rag.lower.cpp_access import AccessMixin
from akg_rag.lower.cpp_expr import conv, offset
from akg_rag.lower.cpp_ops import remap
from akg_rag.lower.cpp_prelude import CLASS_TYPES, DTYPES
from akg_rag.lower.cpp_shapes import KINDS, Dim, Names, Var, expr_names, fail
from akg_rag.lower.typed import Launch
from akg_rag.sketch.nodes import Access, Alloc, Assign, BinOp, Call, For, Load, Slice, Stmt, Store


def is_parallel(s: Stmt) -> bool:
    return isinstance(s, For) and any(h.kind == "parallel" for h in s.hints)


def access_names(a: Access) -> set[str]:
    out: set[str] = set()
    for ix in a.indices:
        out |= (expr_names(ix.start) | expr_names(ix.stop)) if isinstance(ix, Slice) else expr_names(ix)
    return out


def mentions(s: Stmt, name: str) -> bool:
    """Whether a statement reads or writes the local ``name`` (loops: anywhere inside)."""
    if isinstance(s, Alloc):
        return s.target == name
    if isinstance(s, Assign):
        return s.target == name or name in expr_names(s.value)
    if isinstance(s, Load):
        return s.dst == name or name in access_names(s.src)
    if isinstance(s, Store):
        return s.src == name or name in access_names(s.dst)
    return any(mentions(b, name) for b in s.body)


def overwrites(s: Stmt, name: str) -> bool:
    """Whether a statement defines all of ``name`` without reading it first."""
    if isinstance(s, Alloc):
        return s.target == name
    if isinstance(s, Assign):
        return s.target == name and name not in expr_names(s.value)
    if isinstance(s, Load):
        return s.dst == name and name not in access_names(s.src)
    return False


class KernelGen(AccessMixin):
    """C++ text of a sketch's launches; ``run()`` returns the lines of the host function body."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.mat: dict[int, Var] = {}
        self.lines: list[str] = []
        self.depth = 1
        self.count = 0
        self.scopes: list[dict[str, Var]] = [{}]
        self.loops: list[dict[str, str]] = [{}]
        self.decls: list[str] | None = None

    # ---- emitter --------------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def open(self, head: str) -> None:
        self.line(f"{head} {{" if head else "{")
        self.depth += 1

    def close(self) -> None:
        self.depth -= 1
        self.line("}")

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}_"

    @contextmanager
    def scope(self, loop_vars: dict[str, str] | None = None) -> Iterator[None]:
        self.scopes.append({})
        self.loops.append(dict(loop_vars or {}))
        try:
            yield
        finally:
            self.scopes.pop()
            self.loops.pop()

    def lookup(self, name: str) -> Var | None:
        for sc in reversed(self.scopes):
            if name in sc:
                return sc[name]
        return None

    def loop_cname(self, name: str) -> str | None:
        for sc in reversed(self.loops):
            if name in sc:
                return sc[name]
        return None

    def new_tile(self, hint: str, shape: list[Dim], cls: str) -> Var:
        """Storage for a tile: hoisted to the launch's thread-private declarations when its extents
        read no loop variable or local, else declared here."""
        cname = self.fresh(f"v_{hint}")
        ctype = CLASS_TYPES[cls]
        ext = " * ".join(d.text for d in shape if not d.is_one()) or "1"
        if all(d.const for d in shape):
            decl = f"akg::Tile<{ctype}, {ext}> b{cname};"
        else:
            decl = f"akg::Buf<{ctype}> b{cname}({ext});"
        decl += f" {ctype}* __restrict__ {cname} = b{cname}.data();"
        known = self.names.symbols | set(self.names.params)
        if self.decls is not None and all(n in known for d in shape for n in d.names):
            self.decls.append(decl)
        else:
            self.line(decl)
        return Var(hint, cname, list(shape), cls)

    # ---- statements -----------------------------------------------------------------------------
    def block(self, body: list[Stmt]) -> None:
        for k, s in enumerate(body):
            if isinstance(s, For):
                self.loop(s)
            elif isinstance(s, Alloc):
                self.alloc(s, body[k + 1:])
            elif isinstance(s, Assign):
                self.assign(s)
            elif isinstance(s, Load):
                self.load(s)
            elif isinstance(s, Store):
                self.store(s)

    def loop(self, s: For) -> None:
        cv = self.fresh(f"i_{s.var}")
        start = self.int_text(s.start) if s.start is not None else "0"
        stop = self.int_text(s.stop)
        step = self.int_text(s.step) if s.step is not None else "1"
        negative = step.startswith("(-") or step.startswith("-")
        self.open(f"for (int64_t {cv} = {start}; {cv} {'>' if negative else '<'} {stop}; {cv} += {step})")
        with self.scope({s.var: cv}):
            self.block(s.body)
        self.close()

    def alloc(self, s: Alloc, rest: list[Stmt]) -> None:
        shape = [self.dim(d) for d in s.shape]
        cls = DTYPES[s.dtype][2]
        var = self.scopes[-1].get(s.target)
        if var is None or not var.is_tile or var.shape != shape or var.cls != cls:
            var = self.new_tile(s.target, shape, cls)
            var.name = s.target
            self.scopes[-1][s.target] = var
        nxt = next((r for r in rest if mentions(r, s.target)), None)
        if s.init is None and nxt is not None and overwrites(nxt, s.target):
            return   # the next use writes every element first: no fill
        if s.init is not None:
            t, c = self.elem(s.init, [])
            value = conv(t, c, cls)
        else:
            value = conv("0", "i", cls)
        self.nest(shape, lambda idx: self.line(f"{var.cname}[{offset(idx, shape)}] = {value};"))

    def assign(self, s: Assign) -> None:
        var = self.lookup(s.target)
        if var is not None and var.is_tile and self.accumulate(s, var):
            return
        self.prepare(s.value)
        vshape, vcls = self.shape(s.value), self.cls(s.value)
        if var is None:
            if not vshape:
                cname, cls = self.fresh(f"v_{s.target}"), self.local_cls(s)
                self.line(f"{CLASS_TYPES[cls]} {cname} = {conv(self.elem(s.value, [])[0], vcls, cls)};")
                self.scopes[-1][s.target] = Var(s.target, cname, [], cls)
                return
            var = self.new_tile(s.target, vshape, self.local_cls(s))
            var.name = s.target
            self.scopes[-1][s.target] = var
        elif var.is_tile and vshape and self.hazard(s, var, vshape):
            tmp = self.new_tile("h", vshape, vcls)
            self.write(tmp, vshape, lambda idx: self.elem(s.value, idx)[0], vcls)
            self.write(var, vshape, lambda idx: self.var_elem(tmp, idx), vcls)
            return
        self.write(var, vshape, lambda idx: self.elem(s.value, idx)[0], vcls)

    def local_cls(self, s: Stmt) -> str:
        """Class of the local a statement defines (typed: the promotion of every value it takes)."""
        return KINDS[self.names.typed.definition(s).target.kind]

    def accumulate(self, s: Assign, var: Var) -> bool:
        """``acc = acc + matmul(a, b)``: multiply-add straight into the accumulator."""
        v = s.value
        if isinstance(v, BinOp) and v.op == "+":
            pair = (v.left, v.right)
        elif isinstance(v, Call) and v.func == "add":
            pair = (v.args[0], v.args[1])
        else:
            return False
        for acc, mm in (pair, pair[::-1]):
            if (getattr(acc, "id", None) == s.target and isinstance(mm, Call) and mm.func == "matmul"
                    and s.target not in expr_names(mm)):
                self.prepare(mm.args[0])
                self.prepare(mm.args[1])
                shape = self.shape(mm)
                if [d for d in shape if not d.is_one()] != [d for d in var.shape if not d.is_one()]:
                    return False
                self.matmul(mm, into=var)
                return True
        return False

    def hazard(self, s: Assign, var: Var, vshape: list[Dim]) -> bool:
        """Whether the value reads the target at another element than the one being written."""
        if s.target not in expr_names(s.value):
            return False
        probe = [f"PROBE{k}" for k in range(len(vshape))]
        text = self.elem(s.value, probe)[0]
        want = offset(remap(probe, vshape, var.shape), var.shape)
        head = f"{var.cname}["
        pos = text.find(head)
        while pos >= 0:
            depth, k = 1, pos + len(head)
            while depth:
                depth += {"[": 1, "]": -1}.get(text[k], 0)
                k += 1
            if text[pos + len(head):k - 1] != want:
                return True
            pos = text.find(head, k)
        return False

    def load(self, s: Load) -> None:
        for e in self.access_exprs(s.src):
            self.prepare(e)
        if s.other is not None:
            self.prepare(s.other)
        shape, _ = self.access_plan(s.src)
        cls = self.local_cls(s)
        var = self.lookup(s.dst)
        if var is None:
            if shape:
                var = self.new_tile(s.dst, shape, cls)
                var.name = s.dst
            else:
                cname = self.fresh(f"v_{s.dst}")
                self.line(f"{CLASS_TYPES[cls]} {cname};")
                var = Var(s.dst, cname, [], cls)
            self.scopes[-1][s.dst] = var
        elif s.dst in access_names(s.src):
            tmp = self.new_tile("h", shape, var.cls) if shape else None
            if tmp is not None:
                self.emit_load(s.src, tmp, s.other)
                self.write(var, shape, lambda idx: self.var_elem(tmp, idx), var.cls)
                return
        self.emit_load(s.src, var, s.other)

    def store(self, s: Store) -> None:
        var = self.lookup(s.src)
        if var is None:
            raise fail(f"{s.src!r} is used before it is defined", s)
        for e in self.access_exprs(s.dst):
            self.prepare(e)
        self.emit_store(var, s.dst)

    # ---- launches -------------------------------------------------------------------------------
    def launch(self, launch: Launch) -> None:
        counts, starts, steps = [], [], []
        for ax in launch.grid:
            n = self.fresh(f"n_{ax.var}")
            self.line(f"const int64_t {n} = std::max<int64_t>({self.int_text(ax.count)}, 0);")
            counts.append(n)
            starts.append(self.int_text(ax.start))
            steps.append(self.int_text(ax.step))
        grid = [ax.loop for ax in launch.grid]
        body = launch.body
        number = launch.index
        total = " * ".join(counts)
        self.line(f"// launch {number}: grid ({', '.join(g.var for g in grid)})")
        self.line(f"#pragma omp parallel if ({total} > 1)")
        self.open("")
        outer, self.lines = self.lines, []
        self.decls = []
        depth = self.depth
        self.depth = depth + 1   # inside the grid loop
        cvars = {g.var: self.fresh(f"i_{g.var}") for g in grid}
        rem = self.fresh("rem")
        if len(grid) > 1:
            self.line(f"int64_t {rem} = gid_;")
        for k in reversed(range(len(grid))):
            g = grid[k]
            pos = "gid_" if len(grid) == 1 else (rem if k == 0 else f"({rem} % {counts[k]})")
            scaled = pos if steps[k] == "1" else f"{pos} * {steps[k]}"
            self.line(f"const int64_t {cvars[g.var]} = {scaled if starts[k] == '0' else f'{starts[k]} + {scaled}'};")
            if k > 0 and len(grid) > 1:
                self.line(f"{rem} /= {counts[k]};")
        with self.scope(cvars):
            self.block(body)
        inner, self.lines = self.lines, outer
        self.depth = depth
        for d in self.decls:
            self.line(d)
        self.decls = None
        self.line("#pragma omp for schedule(static)")
        self.open(f"for (int64_t gid_ = 0; gid_ < {total}; ++gid_)")
        self.lines += inner
        self.close()
        self.close()
