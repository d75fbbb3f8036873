"""Fusion through a reshape: a pointwise region joins the region whose output it reads reshaped.

Group norm reduces over a view ``[N*G, C/G*H*W]`` of its input and applies its per-channel affine
over ``[N, C, H*W]``: the partitioner, which joins regions of one domain only, ends the reduction
region with the normalised tensor, a host reshape follows, and a second kernel reads it back for
the affine -- one write and one read of the whole tensor more than the computation needs.

Both domains are row-major shapes of the same elements, so an element of one is the element of
the other at the same flat position, and their *common refinement* (the shape whose dims split
both: ``[N, G, C/G, H*W]``) relates their coordinates dim by dim. The consumer's expression moves
into the producer's full-domain output, reading the producer's expression where it read the
stored tensor, over the producer's domain; its other operands are read there either as plain
inputs (reshaped on the host to the producer's domain, when each of its dims is all full or all
broadcast for them: a residual of the output's shape) or as ``gather`` leaves whose index along
each of their dims is computed from the producer's coordinates with constant divisors (the
per-channel weight: channel ``g * C/G + (r // (H*W))`` on row ``n * G + g``). The producer's own
domain and passes are untouched, so its reductions keep their merged, contiguous dims.

A pair is fused when the producer is a pointwise or reduction region, the consumer a pointwise
region, the producer's output reaches the consumer only through ``reshape``/``view`` steps and
nothing else reads it, the domains have a common refinement, neither region was given a sketch
of its own, and the merged kernel has a place: where the producer ran, when the consumer's other
operands exist by then (host views of earlier values move up), else where the consumer ran, when
nothing reads the producer's other outputs before that. It runs after dimension coalescing
(:mod:`akg_rag.lower.coalesce`), on the domains as they will be emitted.

The other direction too: a pointwise region whose one output reaches a *reduction* region only
through reshapes (a convolution's bias and activation before a group norm) becomes that
reduction's prologue. Its expression is evaluated at the reduction's elements, its operands read
plainly or gathered at coordinates computed from the reduction's, in each pass that reads it; the
intermediate tensor is never stored. And a pointwise region whose one output is a pooling's input
(directly or through reshapes) becomes the pooling's prologue (``PoolRegion.prologue``: each
window tap computes its value over the pooled tensor's domain).

In every direction the moved expression's own positions (``index`` leaves, a gather's indices)
are rewritten into the coordinates of the region it moves into.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import replace

import torch

from akg_rag.lower.coalesce import renamed, strided_values, value_factory
from akg_rag.lower.dataflow import step_graph
from akg_rag.lower.region import (Expr, KernelStep, Output, PointwiseRegion, PoolRegion, Program,
                                  Reduction, ReductionRegion, Step, Value, ViewStep, plain_inputs)

_RESHAPES = {"reshape", "view"}


def _reshape(s: ViewStep) -> bool:
    """A reshape: the same values in another shape (``view(torch.int32)`` reads other values)."""
    return s.op in _RESHAPES and not any(isinstance(a, torch.dtype) for a in s.args)
_I64 = "int64"


def refine(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], list[list[int]], list[list[int]]] | None:
    """The common refinement of two row-major shapes of one tensor, and for each dim of ``a`` and of
    ``b`` the run of refinement dims it splits into (empty for a size-1 dim); None when the shapes
    hold different element counts or cut them incompatibly (``[6, 4]`` and ``[8, 3]``)."""
    if math.prod(a) != math.prod(b) or math.prod(a) == 0:
        return None

    def cuts(shape: tuple[int, ...]) -> list[int]:   # suffix products above 1, innermost first
        out, p = [], 1
        for s in reversed(shape):
            if s != 1:
                p *= s
                out.append(p)
        return out

    bounds = sorted({1, *cuts(a), *cuts(b)})
    if any(hi % lo for lo, hi in zip(bounds, bounds[1:])):
        return None
    refined = tuple(hi // lo for lo, hi in reversed(list(zip(bounds, bounds[1:]))))
    # refinement dim k spans the suffix products bounds[m-1-k] .. bounds[m-k] (m = len(refined))
    at = {p: len(refined) - i for i, p in enumerate(bounds)}   # suffix product -> first dim inside it

    def runs(shape: tuple[int, ...]) -> list[list[int]]:
        out, p = [], 1
        for s in reversed(shape):
            if s == 1:
                out.append([])
                continue
            out.append(list(range(at[p * s], at[p])))
            p *= s
        return list(reversed(out))

    return refined, runs(a), runs(b)


def _i(v: int) -> Expr:
    return Expr.const(int(v), _I64)


def _coordinate(e: int, runs_want: list[list[int]], runs_run: list[list[int]], refined: tuple[int, ...]) -> Expr:
    """The index along dim ``e`` of one domain (``runs_want``: its dims' runs of refinement dims)
    of the current element of the domain the kernel runs over (``runs_run``): each refinement
    coordinate taken from the running dim that holds it (``index(d)`` divided by the refinement
    extents inside it, modulo its own extent), weighted by the wanted dim's extents after it."""
    owner = {k: (d, run) for d, run in enumerate(runs_run) for k in run}
    out: Expr | None = None
    for k in runs_want[e]:
        d, run = owner[k]
        inner = math.prod(refined[x] for x in run if x > k)
        c = Expr.index(d)
        if inner > 1:
            c = Expr.call("floordiv", c, _i(inner))
        if k != run[0]:
            c = Expr.call("remainder", c, _i(refined[k]))
        weight = math.prod(refined[x] for x in runs_want[e] if x > k)
        term = c if weight == 1 else Expr.call("mul", c, _i(weight))
        out = term if out is None else Expr.call("add", out, term)
    assert out is not None, "a dim of extent 1 has no coordinate"
    return out


def _plain_shape(v: Value, shape: tuple[int, ...], runs_want: list[list[int]], runs_run: list[list[int]],
                 refined: tuple[int, ...], domain: tuple[int, ...]) -> tuple[int, ...] | None:
    """``v`` (broadcast right-aligned to ``shape``, the domain it was read over, whose dims have
    the refinement runs ``runs_want``) as a shape aligned to the running ``domain`` (runs
    ``runs_run``), when every running dim is all full or all broadcast for it; else None (it is
    then gathered)."""
    full = (1,) * (len(shape) - len(v.shape)) + tuple(v.shape)
    covered = {k for e, run in enumerate(runs_want) if full[e] != 1 for k in run}
    out = []
    for d, run in enumerate(runs_run):
        inside = {k in covered for k in run}
        if len(inside) > 1:
            return None
        out.append(domain[d] if inside == {True} else 1)
    return tuple(out)


class _Plan:
    """One fusable pair: producer step ``i``, consumer step ``j``, the producer's output ``out``
    that the chain of reshapes ``chain`` turns into the consumer's input ``last``, the host views
    moved before ``i``, and where the merged kernel goes (``i`` or ``j``)."""

    def __init__(self, i: int, j: int, out: Output, chain: list[int], last: str, moved: list[int],
                 at: int) -> None:
        self.i, self.j, self.out, self.chain, self.last, self.moved, self.at = i, j, out, chain, last, moved, at


def _exprs(region: PointwiseRegion | ReductionRegion) -> list[Expr]:
    return [o.expr for o in region.outputs] + [r.expr for r in getattr(region, "reductions", [])]


def _reader(steps: list[Step], readers: dict[str, list[int]], name: str, outputs: set[str],
            keep: frozenset[str], kind: type) -> tuple[list[int], str, int] | None:
    """Follow value ``name`` through reshapes that nothing else reads to the one step reading it:
    (the reshape steps, the value that step reads, its index) when that step is a kernel of
    region type ``kind``, not kept, reading the value plainly (never through a gather); else None."""
    chain = []
    while len(readers.get(name, [])) == 1:
        nxt = steps[readers[name][0]]
        if not isinstance(nxt, ViewStep) or not _reshape(nxt) or nxt.out.name in outputs:
            break
        chain.append(readers[name][0])
        name = nxt.out.name
    users = readers.get(name, [])
    if not chain or len(users) != 1:
        return None
    cons = steps[users[0]]
    if not isinstance(cons, KernelStep) or cons.name in keep or not isinstance(cons.region, kind):
        return None
    exprs = _exprs(cons.region)
    if name not in plain_inputs(exprs) or any(name in gathered(e) for e in exprs):
        return None
    return chain, name, users[0]


def _find(steps: list[Step], outputs: set[str], keep: frozenset[str]) -> _Plan | None:
    """The first producer/consumer pair of ``steps`` to merge into the producer (module doc)."""
    producer, readers = step_graph(steps)
    for i, st in enumerate(steps):
        if not isinstance(st, KernelStep) or st.name in keep or \
                not isinstance(st.region, (PointwiseRegion, ReductionRegion)):
            continue
        for out in st.region.outputs:
            if out.domain != "full" or out.value.name in outputs:
                continue
            found = _reader(steps, readers, out.value.name, outputs, keep, PointwiseRegion)
            if found is not None:
                plan = _place(steps, i, found[2], out, found[0], found[1], producer, readers)
                if plan is not None:
                    return plan
    return None


def _place(steps: list[Step], i: int, j: int, out: Output, chain: list[int], last: str,
           producer: dict[str, int], readers: dict[str, list[int]]) -> _Plan | None:
    """The pair as a plan when the domains have a common refinement and the merged kernel has a
    place (module doc)."""
    ra, rb = steps[i].region, steps[j].region
    if refine(ra.shape, rb.shape) is None:
        return None
    moved: list[int] = []
    early = True
    for v in rb.inputs:
        if v.name == last:
            continue
        k = producer.get(v.name)
        path = []
        while k is not None and k > i:   # made after the producer: only host views of earlier values move up
            st = steps[k]
            if not isinstance(st, ViewStep):
                early = False
                break
            path.append(k)
            k = producer.get(st.src.name)
        if k == i:
            return None
        moved += path
    if early:
        return _Plan(i, j, out, chain, last, sorted(set(moved)), i)
    others = [o.value.name for o in ra.outputs if o is not out]
    if any(k <= j for name in others for k in readers.get(name, [])):
        return None
    return _Plan(i, j, out, chain, last, [], j)


def _operands(region: PointwiseRegion | ReductionRegion, skip: str, runs_want: list[list[int]],
              runs_run: list[list[int]], refined: tuple[int, ...], domain: tuple[int, ...],
              strided: set[str], new_value: Callable[[str, tuple[int, ...], str], Value],
              suffix: str) -> tuple[dict[str, Expr], list[Value], list[Step]]:
    """How the running region (over ``domain``) reads ``region``'s inputs, but ``skip``: for each
    plainly read input, an ``input`` leaf of a host reshape to ``domain`` (when every running dim
    is all full or all broadcast for it, and it is not strided) or a ``gather`` at coordinates
    computed from the running ones. Returns (input name -> leaf, the inputs the running region
    needs, the host reshapes); an input the region reads through its own gathers is needed as it is."""
    reads: dict[str, Expr] = {}
    inputs: list[Value] = []
    views: list[Step] = []
    exprs = _exprs(region)
    plain, via_gather = plain_inputs(exprs), set().union(*(gathered(e) for e in exprs))
    for v in region.inputs:
        if v.name == skip:
            continue
        if v.name in via_gather:
            inputs.append(v)
        if v.name not in plain:
            continue
        shape = None if v.name in strided else _plain_shape(v, region.shape, runs_want, runs_run, refined, domain)
        if shape is not None:
            m = new_value(f"{v.name}_{suffix}", shape, v.dtype)
            views.append(ViewStep(out=m, src=v, op="reshape", args=(shape,)))
            reads[v.name] = Expr.input(m.name)
            inputs.append(m)
            continue
        off = len(region.shape) - len(v.shape)
        idx = [_i(0) if n == 1 else _coordinate(off + d, runs_want, runs_run, refined) for d, n in enumerate(v.shape)]
        reads[v.name] = Expr.gather(v.name, idx)
        if v.name not in via_gather:
            inputs.append(v)
    return reads, inputs, views


def _fuse(steps: list[Step], plan: _Plan, new_value: Callable[[str, tuple[int, ...], str], Value],
          strided: set[str]) -> list[Step]:
    """``steps`` with the consumer's outputs computed in the producer's region (module doc)."""
    a, b = steps[plan.i], steps[plan.j]
    ra, rb = a.region, b.region
    refined, runs_a, runs_b = refine(ra.shape, rb.shape)  # type: ignore[misc]
    reads, extra, views = _operands(rb, plan.last, runs_b, runs_a, refined, ra.shape, strided, new_value, "p")
    reads[plan.last] = plan.out.expr
    inputs = list(ra.inputs) + [v for v in extra if all(x.name != v.name for x in ra.inputs)]
    coord = lambda d: _coordinate(d, runs_b, runs_a, refined)  # noqa: E731 - b's dim d at a's element
    after: list[Step] = []
    outputs = [o for o in ra.outputs if o is not plan.out]
    for o in rb.outputs:
        m = new_value(f"{o.value.name}_p", tuple(ra.shape), o.value.dtype)
        outputs.append(Output(m, at_element(o.expr, lambda e: reads.get(e.ref) if e.op == "input" else None, coord), "full"))
        after.append(ViewStep(out=o.value, src=m, op="reshape", args=(tuple(o.value.shape),)))
    if isinstance(ra, ReductionRegion):
        region = ReductionRegion(inputs=inputs, shape=ra.shape, dims=ra.dims, reductions=ra.reductions,
                                 outputs=outputs)
    else:
        region = PointwiseRegion(inputs=inputs, outputs=outputs, shape=ra.shape)
    gone = set(plan.moved) | set(plan.chain) | {plan.i, plan.j}
    head = [st for k, st in enumerate(steps[:plan.at]) if k not in gone]
    tail = [st for k, st in enumerate(steps[plan.at + 1:], start=plan.at + 1) if k not in gone]
    moved = [steps[k] for k in plan.moved]
    return head + moved + views + [KernelStep(region=region, name=a.name)] + after + tail


def _find_prologue(steps: list[Step], outputs: set[str],
                   keep: frozenset[str]) -> tuple[int, int, list[int], str, Output] | None:
    """The first step ``i`` -- a pointwise region with one output, or a reduction region -- whose
    output ``out`` (full domain) reaches reduction step ``j`` only through reshapes, ending at the
    value ``last`` that ``j`` reads plainly, with a common refinement: (i, j, the chain, last,
    out), or None."""
    _, readers = step_graph(steps)
    for i, st in enumerate(steps):
        if not isinstance(st, KernelStep) or st.name in keep:
            continue
        r = st.region
        if isinstance(r, PointwiseRegion) and len(r.outputs) == 1:
            candidates = r.outputs
        elif isinstance(r, ReductionRegion):
            candidates = [o for o in r.outputs if o.domain == "full"]
        else:
            continue
        for out in candidates:
            if out.value.name in outputs:
                continue
            found = _reader(steps, readers, out.value.name, outputs, keep, ReductionRegion)
            if found is not None and found[2] > i and refine(steps[found[2]].region.shape, r.shape) is not None:
                return i, found[2], found[0], found[1], out
    return None


def gathered(e: Expr) -> set[str]:
    """Names of the inputs ``e`` reads through a gather."""
    out = {e.ref} if e.op == "gather" else set()
    for a in e.args:
        out |= gathered(a)
    return out  # type: ignore[return-value]


def at_element(e: Expr, leaf: Callable[[Expr], Expr | None], coord: Callable[[int], Expr]) -> Expr:
    """``e`` (an expression over one domain) evaluated at another domain's element: each leaf
    becomes ``leaf(it)`` (None: kept), each ``index(d)`` becomes ``coord(d)`` (inside a gather's
    index expressions too)."""
    if e.op == "index":
        return coord(int(e.value))  # type: ignore[arg-type]
    if not e.args:
        return leaf(e) or e
    return Expr(e.op, args=tuple(at_element(a, leaf, coord) for a in e.args), ref=e.ref, value=e.value, dtype=e.dtype)


def _fuse_prologue(steps: list[Step], found: tuple[int, int, list[int], str, Output],
                   new_value: Callable[[str, tuple[int, ...], str], Value], strided: set[str]) -> list[Step]:
    """``steps`` with producer step ``i``'s output ``out`` evaluated inside reduction step ``j``
    (module doc). A pointwise producer goes; a reduction producer stays for its statistics, which
    become reduced outputs of it that ``j`` gathers at the producer's kept coordinates."""
    i, j, chain, last, out = found
    p, c = steps[i].region, steps[j].region
    refined, runs_c, runs_p = refine(c.shape, p.shape)  # type: ignore[misc]
    reads, extra, views = _operands(p, "", runs_p, runs_c, refined, c.shape, strided, new_value, "q")
    inputs = [v for v in c.inputs if v.name != last]
    coord = lambda d: _coordinate(d, runs_p, runs_c, refined)  # noqa: E731 - p's dim d at c's element
    producer: list[Step] = []
    if isinstance(p, ReductionRegion):
        stats, kept = statistics(p, out, new_value)
        idx = [_i(0) if d in p.dims else coord(d) for d in range(len(p.shape))]
        numel = math.prod(p.shape[d] for d in p.dims)
        for v in stats.values():
            reads[v.name] = Expr.gather(v.name, idx)
        extra += list(stats.values())

        def leaf(e: Expr) -> Expr | None:
            if e.op == "reduced":
                return reads[stats[e.ref].name]   # type: ignore[index]
            if e.op == "numel":
                return Expr.const(float(numel))
            return reads.get(e.ref) if e.op == "input" else None  # type: ignore[arg-type]

        producer = [KernelStep(region=replace(p, outputs=kept), name=steps[i].name)]
    else:
        def leaf(e: Expr) -> Expr | None:
            return reads.get(e.ref) if e.op == "input" else None  # type: ignore[arg-type]
    inputs += [v for v in extra if all(x.name != v.name for x in inputs)]
    inline = {last: at_element(out.expr, leaf, coord)}
    region = ReductionRegion(inputs=inputs, shape=c.shape, dims=c.dims,
                             reductions=[Reduction(r.name, r.kind, renamed(r.expr, {}, inline)) for r in c.reductions],
                             outputs=[Output(o.value, renamed(o.expr, {}, inline), o.domain) for o in c.outputs])
    gone = set(chain) | {i, j}
    head = [st for k, st in enumerate(steps[:j]) if k not in gone]
    head[i:i] = producer          # a reduction producer keeps its place, less the moved output
    return head + views + [KernelStep(region=region, name=steps[j].name)] + steps[j + 1:]


def statistics(p: ReductionRegion, out: Output,
                new_value: Callable[[str, tuple[int, ...], str], Value]) -> tuple[dict[str, Value], list[Output]]:
    """The reductions ``out`` reads, each as a reduced output of ``p`` (reused where ``p`` already
    writes exactly that value, else new), and ``p``'s outputs without ``out`` plus the new ones."""
    used: list[str] = []

    def walk(e: Expr) -> None:
        if e.op == "reduced" and e.ref not in used:
            used.append(e.ref)  # type: ignore[arg-type]
        for a in e.args:
            walk(a)

    walk(out.expr)
    keepdim = tuple(1 if d in p.dims else s for d, s in enumerate(p.shape))
    kept = [o for o in p.outputs if o is not out]
    stats: dict[str, Value] = {}
    wide = any(v.dtype == "float64" for v in p.inputs)
    for name in used:
        same = next((o.value for o in kept if o.domain == "reduced" and o.expr == Expr("reduced", ref=name)
                     and tuple(o.value.shape) == keepdim), None)
        if same is None:
            kind = next(r.kind for r in p.reductions if r.name == name)
            dtype = "int64" if kind in ("argmax", "argmin") else ("float64" if wide else "float32")
            same = new_value(f"stat_{name}", keepdim, dtype)
            kept.append(Output(same, Expr("reduced", ref=name), "reduced"))
        stats[name] = same
    return stats, kept


def _find_pool(steps: list[Step], outputs: set[str], keep: frozenset[str]) -> tuple[int, int, list[int]] | None:
    """The first pointwise step ``i`` whose one output, directly or through reshapes nothing else
    reads, is the pooled tensor of pool step ``j`` and nothing else: (i, j, the reshapes)."""
    _, readers = step_graph(steps)
    for i, st in enumerate(steps):
        if not isinstance(st, KernelStep) or st.name in keep or not isinstance(st.region, PointwiseRegion) or \
                len(st.region.outputs) != 1 or st.region.outputs[0].value.name in outputs:
            continue
        chain, name = [], st.region.outputs[0].value.name
        while len(readers.get(name, [])) == 1 and isinstance(steps[readers[name][0]], ViewStep):
            nxt = steps[readers[name][0]]
            if not _reshape(nxt) or nxt.out.name in outputs:
                break
            chain.append(readers[name][0])
            name = nxt.out.name
        users = readers.get(name, [])
        if len(users) != 1:
            continue
        cons = steps[users[0]]
        if not isinstance(cons, KernelStep) or cons.name in keep or not isinstance(cons.region, PoolRegion):
            continue
        pool = cons.region
        if pool.prologue is not None or pool.x.name != name or any(v.name == name for v in pool.inputs):
            continue
        if refine(tuple(pool.x.shape), st.region.shape) is not None:
            return i, users[0], chain
    return None


def _fuse_pool(steps: list[Step], found: tuple[int, int, list[int]],
               new_value: Callable[[str, tuple[int, ...], str], Value], strided: set[str]) -> list[Step] | None:
    """``steps`` with pointwise step ``i`` evaluated in pool step ``j``'s window loads (its
    prologue); None when no operand has the pooled tensor's full shape (the kernel's sizes are
    bound from one)."""
    i, j, chain = found
    p, pool = steps[i].region, steps[j].region
    x_shape = tuple(pool.x.shape)
    refined, runs_x, runs_p = refine(x_shape, p.shape)  # type: ignore[misc]
    reads, inputs, views = _operands(p, "", runs_p, runs_x, refined, x_shape, strided, new_value, "q")
    if not any(tuple(v.shape) == x_shape for v in inputs):
        return None
    coord = lambda d: _coordinate(d, runs_p, runs_x, refined)  # noqa: E731 - p's dim d at x's element
    value = at_element(p.outputs[0].expr, lambda e: reads.get(e.ref) if e.op == "input" else None, coord)  # type: ignore[arg-type]
    if pool.x.dtype != "float32":   # the stored tensor's rounding, as the pooling read it
        value = Expr.call("cast", value, dtype=pool.x.dtype)
    region = replace(pool, prologue=value, prologue_inputs=inputs)
    gone = set(chain) | {i, j}
    head = [st for k, st in enumerate(steps[:j]) if k not in gone]
    return head + views + [KernelStep(region=region, name=steps[j].name)] + steps[j + 1:]


def fuse_reshaped(program: Program, keep: frozenset[str] = frozenset()) -> Program:
    """``program`` with every fusable pair (module doc) merged, repeatedly (a chain of reshaped
    pointwise steps collapses into its first region); the kernels named in ``keep`` (given
    sketches of their own) stay as they are. The merged kernel keeps the producer's name; new
    values get unused names."""
    new_value = value_factory(program)
    steps = list(program.steps)
    outputs = program.live_out()
    unfit: set[str] = set()   # pool kernels a producer could not join (no full-shape operand)
    while True:
        if (plan := _find(steps, outputs, keep)) is not None:
            steps = _fuse(steps, plan, new_value, strided_values(steps))
        elif (found := _find_prologue(steps, outputs, keep)) is not None:
            steps = _fuse_prologue(steps, found, new_value, strided_values(steps))
        elif (pooled := _find_pool(steps, outputs, keep | unfit)) is not None:
            fused = _fuse_pool(steps, pooled, new_value, strided_values(steps))
            if fused is None:
                unfit.add(steps[pooled[1]].name)
            else:
                steps = fused
        else:
            break
    return dataclasses.replace(program, steps=steps)
