"""Interior versions of a loop: the same loop without the bounds masks its accesses provably need
nowhere inside a program's tile (used by :mod:`akg_rag.lower.triton_kernel`).

A loop hinted ``@llm_hint("vectorize", ...)`` is emitted twice under one test made once per
program (a grid loop so hinted: its program, from the first load, store or loop on): ``if <every
index of the loop's accesses lies inside its tensor>:`` the loop whose loads and stores carry no
bounds masks for those indices, ``else:`` the loop as usual. The test bounds each index (a
slice: its start, plus its extent) by interval arithmetic over the loop: loop variables inside
it range over their ``range`` (constant or symbolic ends, positive step), ``iota(n)`` over its
padded lanes ``0 .. BLOCK - 1`` (a lane past ``n`` reads too and must be inside the tensor),
locals over their single definition, and scalars defined outside it are points. An index whose
bound cannot be formed (a ``%``, a ``where``, a gathered load, a local assigned twice) keeps its
masks in both versions; a loop none of whose tile indices can be bounded is not versioned.

Why: a mask the compiler cannot prove constant across a vector's lanes (``p >= 0`` and ``p < W``
of a pooling window tapped at an offset) makes Triton load element by element; tiles inside the
tensor -- all but the edges of a large one -- then load vectors and skip the mask arithmetic. On
an H100 the interior version of 1-D pooling over [64, 128, 65536] ran 1.37x faster (1.95 -> 1.42
ms: the copy rate) and of 1-D max pooling with dilation 3 1.26x (docs/results/kernelbench.md,
twenty-fourth session). A loop that holds a barrier is not versioned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from akg_rag.lower.sizes import Size, size_of
from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Load, Name, Neg, Num, Slice, Stmt, Store,
)

if TYPE_CHECKING:
    from akg_rag.lower.triton_kernel import KernelWriter

Bound = tuple[Expr, Expr]


class InteriorMixin:
    """The interior versions a ``KernelWriter`` writes (its ``plain_loop``, ``block``, ``emit``
    and ``access`` do the rest; ``access`` leaves out the bounds masks in ``proven``)."""

    def init_interior(self, body: list[Stmt]) -> None:
        # each local's assignments and defining value (set by ``block``), the (access id, dim)
        # bounds masks left out, and whether any interior version was written (INTERIOR switch)
        self.assigned = assignments(body)
        self.defs: dict[str, Expr] = {}
        self.proven: set[tuple[int, int]] = set()
        self.versioned = False

    def loop(self, s: For) -> None:
        # a `vectorize` loop: an interior version, unless it sits inside one already
        if versioned(s) and not self.proven and self.versions([s], lambda: self.plain_loop(s), whole=False):
            return
        if self.proven and self.span_loop(s):   # inside an interior version (akg_rag.lower.triton_span)
            return
        self.plain_loop(s)

    def program(self, body: list[Stmt], grid: list) -> None:
        """A grid point's statements; versioned from ``split_body`` on when a grid loop asks."""
        cut = split_body(body)
        rest = body[cut:]
        if rest and any(versioned(ax.loop, rest) for ax in grid):
            self.block(body[:cut])
            if not self.versions(rest, lambda: self.block(rest)):
                self.block(rest)
        else:
            self.block(body)

    def versions(self, stmts: list[Stmt], emit, whole: bool = True) -> bool:
        """``emit()`` (which writes ``stmts``) twice: under the interior test of ``stmts`` without
        the bounds masks it proves, else as usual. False, with nothing written, when no tile
        index of ``stmts`` can be bounded. ``whole``: ``emit`` writes ``stmts`` through ``block``
        (False: the one loop of ``stmts`` is written plain, so it has no span form itself)."""
        guard = interior(self, stmts)
        if guard is None:
            return False
        test, self.proven = guard
        self.versioned = True
        flag = self.namer.fresh("interior")
        self.emit(f"{flag} = {test}  # every index below inside its tensor: no bounds masks")
        self.emit(f"{flag} = {flag} & (INTERIOR == 1)  # host: INTERIOR_MODE")
        for static, span in self.span_guards(stmts, whole):   # akg_rag.lower.triton_span
            self.emit(f"if {static}:  # the span form below reads up to 3 elements past its taps")
            self.emit(f"    {flag} = {flag} & {span}")
        self.emit(f"if {flag}:")
        self.depth += 1
        emit()
        self.proven = set()
        self.depth -= 1
        self.emit("else:")
        self.depth += 1
        emit()
        self.depth -= 1
        return True

    # ---- the alignment switch of a versioned kernel (host: ALIGN_MODE) --------------------------
    def interior_params(self) -> list[tuple[str, str]]:
        """The kernel parameters of its interior versions and of its alignment switch."""
        return [("lane_off", "0; never specialised, so its divisibility is unknown to the compiler"),
                ("INTERIOR: tl.constexpr", "1: programs inside the tensors run the interior version (host: INTERIOR_MODE)"),
                ("HIDE_ALIGN: tl.constexpr", "1: every pointer moved by lane_off, so no access is provably "
                                             "aligned (host: ALIGN_MODE)")]

    def jit_line(self) -> str:
        """The kernel's decorator: ``lane_off`` is never specialised in a versioned kernel."""
        return '@triton.jit(do_not_specialize=["lane_off"])' if self.versioned else "@triton.jit"

    def hide_alignment(self) -> None:
        """A versioned kernel's first lines: with ``HIDE_ALIGN``, every tensor pointer plus
        ``lane_off`` (0); see ALIGN_MODE."""
        if not self.versioned:
            return
        self.emit("if HIDE_ALIGN:  # one element a thread per access, consecutive threads on consecutive elements")
        for name in self.tensors():
            self.emit(f"    {self.ptr(name)} += lane_off")


# The window kernels' ALIGN_MODE. Triton's coalescing gives every access of a kernel the per-thread
# width of its widest provably aligned one: with one 16-byte aligned tap (or the store) each thread
# owns four consecutive elements, and a tap at an unaligned offset is then four element-wise loads
# whose 32 lanes are 16 bytes apart, each touching 4-5 cache lines where a load over 32 consecutive
# elements touches 1-2. A pooling window of mostly unaligned taps so costs its SM's L1 ~2.3x the
# wavefronts per output (level1/41: eight taps, six unaligned), which matches its rows running in
# the same time on an H100 and an H200. ALIGN_MODE 2 moves every pointer by an unspecialised 0,
# so no access is provably aligned: one element a thread per access, 32 consecutive elements a
# warp instruction, the aligned taps and the store losing their vectors. Which wins is measured.
DEFAULT_ALIGN_MODE = 1


def versioned(loop: For, body: list[Stmt] | None = None) -> bool:
    """Whether ``loop`` asks for an interior version of itself (or of ``body``, the part of a
    grid loop's program that would be versioned): a ``vectorize`` hint, no barrier inside."""
    return any(h.kind == "vectorize" for h in loop.hints) and not any(
        isinstance(s, Barrier) for s in _walk(loop.body if body is None else body))


def assignments(body: list[Stmt]) -> dict[str, int]:
    """How many statements of ``body`` (nested loops included) assign each local."""
    counts: dict[str, int] = {}
    for s in _walk(body):
        name = s.target if isinstance(s, (Assign, Alloc)) else s.dst if isinstance(s, Load) else None
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return counts


def split_body(body: list[Stmt]) -> int:
    """Where a program's body is versioned when its grid loop asks for it: at the first load,
    store or loop (the statements before it only compute the program's indices)."""
    return next((i for i, s in enumerate(body) if isinstance(s, (Load, Store, For))), len(body))


def interior(w: KernelWriter, stmts: list[Stmt]) -> tuple[str, set[tuple[int, int]]] | None:
    """The test of the interior version of ``stmts`` (a loop, or the rest of a program; kernel
    text) and the (access id, dim) pairs whose bounds masks it makes redundant; None when no tile
    index can be bounded."""
    inner = assignments(stmts)
    ranges: dict[str, Bound | None] = {}
    local: dict[str, Expr] = {}
    conds: list[str] = []
    proven: set[tuple[int, int]] = set()
    tiles = False          # a tile index among them (scalar masks alone are not worth a version)

    def bound(e: Expr) -> Bound | None:
        if isinstance(e, Num):
            return (e, e) if isinstance(e.value, int) else None
        if isinstance(e, Name):
            if e.id in ranges:
                return ranges[e.id]
            if e.id in local:
                return bound(local[e.id])
            if inner.get(e.id):            # assigned inside the loop, but not once before its use
                return None
            if e.id in w.t.params and e.id not in w.t.tunables:
                return bound(w.t.params[e.id])
            if w._loop(e.id) is not None or e.id in w.t.tunables or _symbol(w, e.id):
                return (e, e)               # fixed while the loop runs
            if w.assigned.get(e.id) != 1 or e.id not in w.defs:
                return None
            rank = _rank(w, e)
            if rank == 0:
                return (e, e)               # a scalar defined once, before the loop
            return bound(w.defs[e.id]) if rank is not None else None
        if isinstance(e, Neg):
            b = bound(e.operand)
            return None if b is None else (_neg(b[1]), _neg(b[0]))
        if isinstance(e, BinOp):
            return _binop(w, e.op, bound(e.left), bound(e.right), e)
        if isinstance(e, Call):
            if e.func == "iota" and len(e.args) == 1:
                s = w.t.type_of(e).shape[0]
                w.offs(s)
                c = w.blocks.const_block(s)
                return Num(0), (Num(c - 1) if c is not None else BinOp("-", Name(w.blocks.name(s)), Num(1)))
            if e.func in ("unsqueeze", "transpose") and e.args:
                return bound(e.args[0])
        return None

    def access(a: Access, shape: tuple[Size, ...]) -> None:
        nonlocal tiles
        dims = w.t.shapes[a.tensor]
        slices = [d for d, idx in enumerate(a.indices) if isinstance(idx, Slice)]
        for d, idx in enumerate(a.indices):
            if isinstance(idx, Slice):   # start + the lanes of its extent (padded lanes stay masked)
                ext = shape[len(shape) - len(slices) + slices.index(d)]
                lower = not w.nonneg(idx.start)
                upper = lower or size_of(idx.stop, w._values()) != dims[d]
                b = bound(idx.start)
                b = None if b is None else (b[0], _add(b[1], _sub(ext.expr, Num(1))))
                tile = True
            else:
                lower, upper = not w.nonneg(idx), not w.below(idx, dims[d])
                b = bound(idx) if lower or upper else None
                tile = bool(_rank(w, idx))
            if not (lower or upper) or b is None:
                continue
            lo, hi = (w.index(x).text for x in b)
            if lower:
                conds.append(f"({lo} >= 0)")
            if upper:
                conds.append(f"({hi} < {w.size(dims[d]).text})")
            proven.add((id(a), d))
            tiles = tiles or tile

    def visit(body: list[Stmt]) -> None:
        for s in body:
            if isinstance(s, For):
                step = s.step if s.step is not None else Num(1)
                start = s.start if s.start is not None else Num(0)
                ok = isinstance(step, Num) and isinstance(step.value, int) and step.value > 0
                lo, hi = bound(start), bound(s.stop)
                ranges[s.var] = (lo[0], _add(hi[1], Num(-1))) if ok and lo and hi else None
                visit(s.body)
            elif isinstance(s, Assign):
                if inner.get(s.target) == 1 and s.target not in w.carried:
                    local[s.target] = s.value
            elif isinstance(s, Load):
                access(s.src, w.t.definition(s).value.shape)
            elif isinstance(s, Store):
                access(s.dst, w.t.type_of(s.dst).shape)

    visit(stmts)
    if not tiles:
        return None
    unique = list(dict.fromkeys(conds))
    return " & ".join(unique), proven


def _rank(w: KernelWriter, e: Expr) -> int | None:
    """The rank of ``e``'s value (None where the typed sketch recorded none)."""
    try:
        return w.t.type_of(e).rank
    except KeyError:
        return None


def _symbol(w: KernelWriter, name: str) -> bool:
    return any(s.name == name for s in w.t.sketch.symbols)


def _walk(body: list[Stmt]):
    for s in body:
        yield s
        if isinstance(s, For):
            yield from _walk(s.body)


def _num(e: Expr) -> int | None:
    return e.value if isinstance(e, Num) and isinstance(e.value, int) else None


def _neg(e: Expr) -> Expr:
    n = _num(e)
    return Num(-n) if n is not None else Neg(e)


def _add(a: Expr, b: Expr) -> Expr:
    x, y = _num(a), _num(b)
    if x is not None and y is not None:
        return Num(x + y)
    if y == 0:
        return a
    if x == 0:
        return b
    if y is not None and y < 0:
        return BinOp("-", a, Num(-y))
    return BinOp("+", a, b)


def _sub(a: Expr, b: Expr) -> Expr:
    y = _num(b)
    return _add(a, Num(-y)) if y is not None else BinOp("-", a, b)


def _mul(a: Expr, b: Expr) -> Expr:
    x, y = _num(a), _num(b)
    if x is not None and y is not None:
        return Num(x * y)
    if y == 1:
        return a
    if x == 1:
        return b
    if x == 0 or y == 0:
        return Num(0)
    return BinOp("*", a, b)


def _binop(w: KernelWriter, op: str, a: Bound | None, b: Bound | None, e: BinOp) -> Bound | None:
    """Bounds of ``a op b`` from the operands' bounds (None where they cannot be formed)."""
    if a is None or b is None:
        return None
    if op == "+":
        return _add(a[0], b[0]), _add(a[1], b[1])
    if op == "-":
        return _sub(a[0], b[1]), _sub(a[1], b[0])
    if op == "*":
        for x, y, factor in ((a, b, e.left), (b, a, e.right)):
            if x[0] is x[1] or x[0] == x[1]:       # a point: its sign decides
                c = _num(x[0])
                if c is not None and c < 0:
                    return _mul(y[1], x[0]), _mul(y[0], x[0])
                if c is not None or w.nonneg(factor):
                    return _mul(y[0], x[0]), _mul(y[1], x[0])
        return None
    if op == "//":
        c = _num(b[0])
        if c is not None and c > 0 and b[0] == b[1]:   # floor division by a positive constant: monotone
            return BinOp("//", a[0], b[0]), BinOp("//", a[1], b[0])
        return None
    return None
