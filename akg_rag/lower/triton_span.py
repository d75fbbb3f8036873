"""Window taps formed in registers: the span form of an unrolled tap loop inside an interior version
(used by :mod:`akg_rag.lower.triton_kernel`; host switch ``SPAN_MODE``).

A sliding window (pooling, a depthwise convolution) loads, in each of its ``K`` unrolled taps, the
tile ``x[..., R + st * lane + D * k + C]`` -- the same lanes moved by the tap's offset. Triton
gives every load of a kernel its widest provable per-thread vector (four f32), so a tap whose
offset is not a multiple of four is split into scalar and two-element pieces; ptxas merges the
pieces two taps share, which at dilation 1 is most of them and at dilation 3 few (level1/41, max
pooling with 8 taps at dilation 3: 38 global loads a thread in the machine code against 27 at
dilation 1, and 1.37x the time an output on the H200).

The span form loads, before the tap loop, each group of four lanes' whole input span once: ``G``
aligned four-element vectors from ``a0 = R + min_k(D * k + C) - S`` (``S`` makes ``a0`` a multiple
of four when ``R`` is), splits them into columns with ``tl.split`` and, in each tap, joins the four
columns that tap reads back into the lane tile (``tl.join`` and ``tl.reshape``: registers, no shared
memory). Level1/41 then needs 14 loads a thread, 12 of them vectors (offline, sm_90).

Where it applies, every condition checked when the kernel is written: the loop is unrolled
(``tl.static_range``) with a constant start and step, inside an interior version; the load's last
index is affine in the loop variable and in the ``iota`` along the loaded tile's last axis, with
integer coefficients (``D``, and the output stride ``st`` >= 1) and otherwise a scalar; its other
indices do not change along that axis nor with the tap; the tap needs no bounds mask. When
compiled: the tile's last extent is a multiple of four and unpadded, and the tile gives each
thread four lanes at least (the host passes the launch's warps as ``SPAN``: with fewer lanes a
thread, the split into columns goes through shared memory, offline sm_90). At run time: the
program's span (up to three elements wider than the taps' reach) lies inside the tensor's last
dimension -- else the taps load as usual. That test joins the program's interior test where the
span's first element is the same for the whole versioned region (``span_guards``): a run-time
branch around each tap loop of an unrolled 2-D window would keep ptxas from issuing one row's
loads before the previous row's arithmetic. Which form is faster is measured (``SPAN_MODE``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from akg_rag.lower.cpp_shapes import expr_names
from akg_rag.lower.reuse import statements
from akg_rag.lower.sizes import Size
from akg_rag.lower.triton_interior import _rank
from akg_rag.lower.triton_loops import unrolled
from akg_rag.lower.triton_names import ADD, ATOM, MUL, WIDEN_TL
from akg_rag.sketch.nodes import Assign, BinOp, Call, Expr, For, Load, Name, Neg, Num, Slice, Stmt

if TYPE_CHECKING:
    from akg_rag.lower.triton_kernel import KernelWriter

# Timed on an H100 (docs/results/kernelbench.md, thirtieth and thirty-first sessions): a 1-D window
# (level1/41, 8 taps at dilation 3) ran 1.08x and, with the bounds in the interior test, 1.12x
# faster in span form (offline: 38 -> 29 machine-code loads), level1/44 (8 taps at dilation 1: 27
# -> 25) in the same time; a 2-D window (a tap loop inside a loop over the window's rows: level1/82,
# depthwise 3x3) 1.9x slower, with machine code the same size in both modes, and level1/42 (rows
# rolled in a run-time loop) 1.10x slower on 4 warps. So a kernel whose span loops are all flat (no
# loop of more than one iteration around them) defaults to the span form; one with a 2-D window
# does not.
DEFAULT_SPAN_MODE = 1
FLAT_SPAN_MODE = 2


@dataclass
class Lin:
    """``lane * iota + k * var + const + sum(rest)`` (``rest``: scalar expressions with a factor)."""

    lane: int = 0
    k: int = 0
    const: int = 0
    rest: list[tuple[int, Expr]] = field(default_factory=list)

    def scaled(self, f: int) -> Lin:
        return Lin(self.lane * f, self.k * f, self.const * f, [(c * f, e) for c, e in self.rest])

    def plus(self, o: Lin) -> Lin:
        return Lin(self.lane + o.lane, self.k + o.k, self.const + o.const, self.rest + o.rest)


@dataclass
class Span:
    """One tap load in span form."""

    load: Load
    lane: Size              # the loaded tile's last axis
    lin: Lin                # its last index
    lo: int                 # the smallest tap offset (const + k * var over the loop)
    groups: int             # four-element vectors per group of four lanes
    tup: str = ""           # the kernel's tuple of span columns

    @property
    def first(self) -> int:
        """Span index of lane 0's tap at var = 0."""
        return self.lo % 4 - self.lo + self.lin.const


class SpanMixin:
    """The span form a ``KernelWriter`` writes for an unrolled tap loop (module docstring)."""

    def init_span(self) -> None:
        self.span_used = False                  # the kernel reads SPAN (host: SPAN_MODE)
        self.span_flat = True                   # ... and every span loop of it is a 1-D window's
        self.loops_around = 0                   # loops of more than one iteration around what is written
        self.span_taps: dict[int, Span] = {}    # id(load) -> its span while the span loop is written
        self.span_checked: dict[int, set[int]] = {}   # id(loop) -> id(load)s the interior test bounds

    def span_loop(self: KernelWriter, s: For) -> bool:
        """Write ``s`` in span form under its compile-time test (and a run-time one, unless the
        interior test already holds it), and the plain loop otherwise; False, with nothing
        written, where no load of ``s`` qualifies."""
        plan = _plan(self, s)
        if not plan:
            return False
        self.span_used = True
        if self.loops_around:   # a window's rows (unrolled or not): 2-D
            self.span_flat = False
        self.emit(f"if {_static(self, plan)}:  # taps from each lane group's span (host: SPAN_MODE)")
        self.depth += 1
        _hoist(self, s, plan)
        # a load whose span the interior test did not bound (say, one whose index only resolved
        # here) keeps the loop's own run-time test
        checked = {id(sp.load) for sp in plan} <= self.span_checked.get(id(s), set())
        for i, sp in enumerate(plan):
            start, _ = _bounds(self, sp)
            self.emit(f"{self.namer.fresh(f'span{i}_a')} = {start}  # first element of {sp.load.dst}'s span "
                      "(a multiple of 4 where the tile's start is)")
        if not checked:
            flag = self.namer.fresh("span_ok")
            tests = [_bounds(self, sp, self.namer.fresh(f"span{i}_a"))[1] for i, sp in enumerate(plan)]
            self.emit(f"{flag} = {' & '.join(tests)}  # every span inside its tensor")
            self.emit(f"if {flag}:")
            self.depth += 1
        for i, sp in enumerate(plan):
            _span_loads(self, sp, i)
        self.span_taps = {id(sp.load): sp for sp in plan}
        self.plain_loop(s)
        self.span_taps = {}
        if not checked:
            self.depth -= 1
            self.emit("else:")
            self.depth += 1
            self.plain_loop(s)
            self.depth -= 1
        self.depth -= 1
        self.emit("else:")
        self.depth += 1
        self.plain_loop(s)
        self.depth -= 1
        return True

    def span_guards(self: KernelWriter, stmts: list[Stmt], whole: bool = True) -> list[tuple[str, str]]:
        """For the interior test of ``stmts`` (``self.proven`` already its proof): the (compile-time
        test, run-time span test) of each span-form loop in them whose span starts at the same
        element for the whole region -- one test a program instead of a branch around each loop
        (a branch per unrolled outer tap keeps ptxas from issuing the rows' loads together).
        Those loops are then written without a run-time test of their own. ``whole`` False: the
        one loop of ``stmts`` is written plain (the versioned loop itself), so only loops inside it."""
        inner = {x.var if isinstance(x, For) else x.target if isinstance(x, Assign) else x.dst
                 for x in statements(stmts) if isinstance(x, (For, Assign, Load))}   # bound inside
        out = []
        for s in statements(stmts if whole else stmts[0].body):
            if not isinstance(s, For):
                continue
            plan = _plan(self, s)
            rest = {n for sp in plan for _, e in sp.lin.rest for n in expr_names(e)}
            if plan and not rest & inner:
                self.span_checked[id(s)] = {id(sp.load) for sp in plan}
                out.append((_static(self, plan), " & ".join(_bounds(self, sp)[1] for sp in plan)))
        return out

    def span_tap(self: KernelWriter, sp: Span, var: str) -> str:
        """The tap tile at loop variable ``var`` (a constexpr in the unrolled loop), from the span."""
        st, d = sp.lin.lane, sp.lin.k
        cols = [f"{sp.tup}[{sp.first + st * c} + {d} * {self.var(var)}]" for c in range(4)]
        joined = f"tl.join(tl.join({cols[0]}, {cols[2]}), tl.join({cols[1]}, {cols[3]}))"
        return f"tl.reshape({joined}, {self.block_shape(self.t.definition(sp.load).value.shape)})"


def _plan(w: KernelWriter, s: For) -> list[Span]:
    """The loads of ``s`` that qualify (every condition but the run-time ones)."""
    ks = unrolled(s, w.t)
    if not ks or w.after_barrier or any(isinstance(x, For) for x in s.body):
        return []
    names = [x.target if isinstance(x, Assign) else x.dst for x in s.body if isinstance(x, (Assign, Load))]
    if len(names) != len(set(names)):
        return []
    local = {x.target: x.value for x in s.body if isinstance(x, Assign)}
    loaded = {x.dst for x in s.body if isinstance(x, Load)}
    plan = []
    for x in s.body:
        if isinstance(x, Load) and id(x) not in w.reuse.evict:
            sp = _span(w, s.var, x, local, loaded, ks)
            if sp is not None:
                plan.append(sp)
    return plan


def _span(w: KernelWriter, var: str, x: Load, local: dict[str, Expr], loaded: set[str],
          ks: range) -> Span | None:
    a = x.src
    if any(isinstance(i, Slice) for i in a.indices):
        return None
    d = w.t.definition(x)
    if d.value is None or not d.value.shape:
        return None
    lane = d.value.shape[-1]
    c = w.blocks.const_block(lane)
    if c is not None and (lane.value != c or c % 4):
        return None                              # a padded or too short constant extent
    dims = w.t.shapes[a.tensor]
    for k, idx in enumerate(a.indices):        # every bounds mask proven by the interior test
        if (id(a), k) not in w.proven and not (w.nonneg(idx) and w.below(idx, dims[k])):
            return None
    lin = _lin(w, a.indices[-1], var, local, loaded, lane)
    if lin is None or lin.lane < 1:
        return None
    for idx in a.indices[:-1]:                 # the same for every lane of a row and every tap
        if _depends(idx, var, local, loaded):
            return None
        t = w.t.type_of(idx)
        if t.rank and not t.shape[-1].is_one:
            return None
    offsets = [lin.const + lin.k * k for k in ks]
    lo = min(offsets)
    reach = lo % 4 + 3 * lin.lane + max(offsets) - lo     # the last span index a tap reads
    return Span(x, lane, lin, lo, reach // 4 + 1)


def _depends(e: Expr, var: str, local: dict[str, Expr], loaded: set[str], seen: frozenset = frozenset()) -> bool:
    """Whether ``e`` changes with the loop variable ``var`` (through the loop's locals too)."""
    for n in expr_names(e):
        if n == var or n in loaded:
            return True
        if n in local and n not in seen and _depends(local[n], var, local, loaded, seen | {n}):
            return True
    return False


def _lin(w: KernelWriter, e: Expr, var: str, local: dict[str, Expr], loaded: set[str],
         lane: Size, seen: frozenset = frozenset()) -> Lin | None:
    """``e`` as a :class:`Lin` over ``var`` and the iota along ``lane`` (None where it is not one)."""
    def sub(x: Expr) -> Lin | None:
        return _lin(w, x, var, local, loaded, lane, seen)

    n = _const(w, e)
    if n is not None:
        return Lin(const=n)
    scalar = Lin(rest=[(1, e)]) if not _depends(e, var, local, loaded) and _rank(w, e) == 0 else None
    if scalar is not None and not (isinstance(e, Neg) or isinstance(e, BinOp) and e.op in "+-*"):
        return scalar   # a scalar fixed during the loop (its constant part folded where it is a sum)
    if isinstance(e, Name):
        if e.id == var:
            return Lin(k=1)
        if e.id in loaded or e.id in seen:
            return None
        for table in (local, w.t.params if e.id not in w.t.tunables else {},
                      w.defs if w.assigned.get(e.id) == 1 else {}):
            if e.id in table:
                return _lin(w, table[e.id], var, local, loaded, lane, seen | {e.id})
        return None
    if isinstance(e, Neg):
        x = sub(e.operand)
        return scalar if x is None else x.scaled(-1)
    if isinstance(e, BinOp) and e.op in "+-":
        x, y = sub(e.left), sub(e.right)
        if x is None or y is None:
            return scalar
        return x.plus(y if e.op == "+" else y.scaled(-1))
    if isinstance(e, BinOp) and e.op == "*":
        for f, other in ((e.left, e.right), (e.right, e.left)):
            c = _const(w, f)
            if c is not None:
                x = sub(other)
                return None if x is None else x.scaled(c)
        return scalar
    if isinstance(e, Call) and e.func == "iota" and len(e.args) == 1:
        shape = w.t.type_of(e).shape
        return Lin(lane=1) if shape and shape[0] == lane else None
    if isinstance(e, Call) and e.func == "unsqueeze" and e.args:
        where = e.args[1] if len(e.args) > 1 else e.kwargs.get("axis")
        inner, axis = _rank(w, e.args[0]), _const(w, where) if where is not None else None
        x = sub(e.args[0])
        if x is None or inner is None or axis is None or (x.lane and axis in (inner, -1)):
            return None     # a new last axis: the lanes no longer run along the loaded tile's last
        return x
    return None


def _const(w: KernelWriter, e: Expr) -> int | None:
    """An integer known when the kernel is written (a number, or a numeric non-tunable param)."""
    if isinstance(e, Num):
        return e.value if isinstance(e.value, int) and not isinstance(e.value, bool) else None
    if isinstance(e, Neg):
        v = _const(w, e.operand)
        return None if v is None else -v
    if isinstance(e, Name) and e.id in w.t.params and e.id not in w.t.tunables:
        return _const(w, w.t.params[e.id])
    return None


def _hoist(w: KernelWriter, s: For, plan: list[Span]) -> None:
    """The loop's own locals the spans' indices read (none changes with the tap), written first."""
    local = {x.target: x for x in s.body if isinstance(x, Assign)}
    need: set[str] = set()
    todo = [e for sp in plan for e in sp.load.src.indices[:-1]] + [e for sp in plan for _, e in sp.lin.rest]
    while todo:
        for n in expr_names(todo.pop()):
            if n in local and n not in need:
                need.add(n)
                todo.append(local[n].value)
    w.block([x for x in s.body if isinstance(x, Assign) and x.target in need])


def _quarter(w: KernelWriter, sp: Span) -> str:
    """Groups of four lanes along the tile's last axis (kernel text)."""
    c = w.blocks.const_block(sp.lane)
    return str(c // 4) if c is not None else f"{w.blocks.name(sp.lane)} // 4"


def _static(w: KernelWriter, plan: list[Span]) -> str:
    """The compile-time test of a span form: SPAN on, four lanes a thread at least (so each thread
    splits whole groups), the tile's last extent unpadded and a multiple of four."""
    static = ["(SPAN > 0)"]
    for sp in plan:
        blocks = " * ".join(w.blocks.name(x) for x in w.t.definition(sp.load).value.shape)
        static.append(f"({blocks} >= 128 * SPAN)")
        if w.blocks.const_block(sp.lane) is None:
            ext = w.size(sp.lane).text
            static += [f"({w.blocks.name(sp.lane)} == {ext})", f"({ext} % 4 == 0)"]
    return " & ".join(dict.fromkeys(static))


def _bounds(w: KernelWriter, sp: Span, base: str | None = None) -> tuple[str, str]:
    """The first element of one load's span (kernel text) and the test that the span lies inside
    its row (of ``base`` when given, a variable holding that first element)."""
    parts = [w.expr(e).at(MUL) if c == 1 else f"{c} * {w.expr(e).at(MUL)}" for c, e in sp.lin.rest]
    start = sp.lo - sp.lo % 4
    text = " + ".join(parts or ["0"]) + (f" + {start}" if start > 0 else f" - {-start}" if start else "")
    at = base or f"({text})"
    end = f"{at} + {4 * sp.lin.lane} * ({_quarter(w, sp)} - 1) + {4 * sp.groups - 1}"
    dims = w.t.shapes[sp.load.src.tensor]
    return text, f"({at} >= 0) & ({end} < {w.size(dims[-1]).at(ADD + 1)})"


def _span_loads(w: KernelWriter, sp: Span, i: int) -> None:
    """Emit one load's span: its groups of four-element vectors, split into columns."""
    a = sp.load.src
    shape = w.t.definition(sp.load).value.shape
    n, st = len(shape), sp.lin.lane
    dims = w.t.shapes[a.tensor]
    base = w.namer.fresh(f"span{i}_a")
    quarter = _quarter(w, sp)
    terms = []
    for k, idx in enumerate(a.indices[:-1]):
        em, r = w.expr(idx), w.t.type_of(idx).rank
        text = em.at(MUL) if not r else f"{em.at(ATOM)}[{', '.join([':'] * r + ['None'])}]"
        terms.append(f"{text} * {w.stride(a.tensor, k)}")
    rows = w.expand(f"tl.arange(0, {quarter})", n - 1, n + 1)
    cols = w.expand("tl.arange(0, 4)", n, n + 1)
    compute = WIDEN_TL.get(w.t.tensor(a.tensor).dtype)
    split = ", ".join([w.blocks.name(x) for x in shape[:-1]] + [quarter, "2", "2"])
    names = []
    for g in range(sp.groups):
        v = w.namer.fresh(f"span{i}_g{g}")
        pos = f"({base} + {4 * g} + {4 * st} * {rows} + {cols})"
        ptr = " + ".join([w.ptr(a.tensor)] + terms + [f"{pos} * {w.stride(a.tensor, len(dims) - 1)}"])
        w.emit(f"{v} = tl.load({ptr}){f'.to({compute})' if compute else ''}")
        w.emit(f"{v}_02, {v}_13 = tl.split(tl.reshape({v}, ({split})))")
        w.emit(f"{v}_0, {v}_2 = tl.split({v}_02)")
        w.emit(f"{v}_1, {v}_3 = tl.split({v}_13)")
        names += [f"{v}_{col}" for col in range(4)]
    sp.tup = w.namer.fresh(f"span{i}")
    w.emit(f"{sp.tup} = ({', '.join(names)},)")
