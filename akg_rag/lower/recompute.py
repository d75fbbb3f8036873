"""A reduction's full-domain output that later kernels only gather from is recomputed where they
gather it, never stored.

Cross-entropy is a log-softmax over ``[batch, classes]`` followed by one gathered element per row
(the target's). Partitioned as written, the reduction region stores the whole log-softmax -- a
write as large as its input -- and the loss kernel reads back ``batch`` elements of it. The stored
tensor is not needed: the element at ``[i, t]`` is the region's output expression evaluated there
(``x[i, t] - max_i - log(sum_i)``), which needs only the input element and the row's statistics.

So when every reader of such an output reads it through ``gather`` leaves alone, and together they
gather far fewer elements than the output holds, the producer keeps its statistics as small
reduced outputs (:func:`akg_rag.lower.refinement.statistics`, reused where the region writes them
already) and drops the output; each gather becomes the output's expression at the gathered
position: the producer's inputs gathered at it, the statistics gathered at its kept coordinates,
the reduced element count a constant. A gathered position outside the output read ``other``
before and still does (the rebuilt value is selected only inside). Runs after
:func:`akg_rag.lower.refinement.fuse_reshaped`, on the regions as they will be emitted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from akg_rag.lower.coalesce import value_factory
from akg_rag.lower.dataflow import step_graph
from akg_rag.lower.refinement import at_element, gathered, statistics
from akg_rag.lower.region import (Expr, KernelStep, Output, PointwiseRegion, Program, ReductionRegion, Step, Value,
                                  plain_inputs)

# the readers together gather at most this fraction of the output's elements
MAX_GATHERED_FRACTION = 1 / 8

_Readable = (PointwiseRegion, ReductionRegion)


def _exprs(region: PointwiseRegion | ReductionRegion) -> list[Expr]:
    return [o.expr for o in region.outputs] + [r.expr for r in getattr(region, "reductions", [])]


def _sites(e: Expr, name: str) -> int:
    """How many gather leaves of ``name`` an expression holds."""
    return (e.op == "gather" and e.ref == name) + sum(_sites(a, name) for a in e.args)


def _gathered_elements(region: PointwiseRegion | ReductionRegion, name: str) -> int:
    """At most how many elements of ``name`` a region's gathers read (each site once per element of
    the domain it is evaluated over)."""
    full = math.prod(region.shape)
    total = 0
    for o in region.outputs:
        over = full if o.domain == "full" else math.prod(o.value.shape)
        total += _sites(o.expr, name) * over
    for r in getattr(region, "reductions", []):
        total += _sites(r.expr, name) * full
    return total


def _candidate(steps: list[Step], outputs: set[str], keep: frozenset[str]) -> tuple[int, Output, list[int]] | None:
    """The first (producer step, its full output, the reader steps) to recompute (module doc)."""
    _, readers = step_graph(steps)
    for i, st in enumerate(steps):
        if not isinstance(st, KernelStep) or st.name in keep or not isinstance(st.region, ReductionRegion):
            continue
        for out in st.region.outputs:
            name = out.value.name
            users = sorted(set(readers.get(name, [])))
            if out.domain != "full" or name in outputs or not users:
                continue
            regions = [steps[j].region if isinstance(steps[j], KernelStep) else None for j in users]
            if any(not isinstance(r, _Readable) or steps[j].name in keep for j, r in zip(users, regions)):
                continue
            if any(name in plain_inputs(_exprs(r)) for r in regions):   # read plainly: it must exist
                continue
            total = sum(_gathered_elements(r, name) for r in regions)
            if 0 < total <= math.prod(st.region.shape) * MAX_GATHERED_FRACTION:
                return i, out, users
    return None


def _inside(idx: tuple[Expr, ...], shape: tuple[int, ...], domain: tuple[int, ...]) -> Expr | None:
    """The test that a position gathered by a region over ``domain`` lies inside ``shape``; None
    when it always does (each index a constant inside its extent, or a position along a domain dim
    no longer than it)."""
    test: Expr | None = None
    for e, n in zip(idx, shape):
        if e.op == "const" and isinstance(e.value, int) and 0 <= e.value < n:
            continue
        if e.op == "index" and domain[int(e.value)] <= n:  # type: ignore[arg-type]
            continue
        c = Expr.call("logical_and", Expr.call("ge", e, Expr.const(0, "int64")), Expr.call("lt", e, Expr.const(n, "int64")))
        test = c if test is None else Expr.call("logical_and", test, c)
    return test


def _rebuild(p: ReductionRegion, out: Output, stats: dict[str, Value],
             domain: tuple[int, ...]) -> Callable[[tuple[Expr, ...], object], Expr]:
    """``make(idx, other)``: ``out``'s expression at the producer's element ``idx``, gathered by a
    region over ``domain``."""
    by_name = {v.name: v for v in p.inputs}
    numel = math.prod(p.shape[d] for d in p.dims)
    n = len(p.shape)

    def make(idx: tuple[Expr, ...], other: object) -> Expr:
        def leaf(e: Expr) -> Expr | None:
            if e.op == "input":
                v = by_name[e.ref]  # type: ignore[index]
                off = n - len(v.shape)
                return Expr.gather(v.name, [idx[off + k] if s != 1 else Expr.const(0, "int64")
                                            for k, s in enumerate(v.shape)])
            if e.op == "reduced":
                s = stats[e.ref]  # type: ignore[index]
                return Expr.gather(s.name, [Expr.const(0, "int64") if d in p.dims else idx[d] for d in range(n)])
            if e.op == "numel":
                return Expr.const(float(numel))
            return None

        value = at_element(out.expr, leaf, lambda d: idx[d])
        if out.value.dtype != "float32":   # the stored tensor's rounding, as the readers read it
            value = Expr.call("cast", value, dtype=out.value.dtype)
        test = _inside(idx, p.shape, domain)
        if test is None:
            return value
        return Expr.call("where", test, value, Expr.const(other if other is not None else 0))
    return make


def _replaced(e: Expr, name: str, make: Callable[[tuple[Expr, ...], object], Expr]) -> Expr:
    """``e`` with every gather of ``name`` rebuilt by ``make`` (indices rewritten first)."""
    args = tuple(_replaced(a, name, make) for a in e.args)
    if e.op == "gather" and e.ref == name:
        return make(args, e.value)
    return e if args == e.args else Expr(e.op, args=args, ref=e.ref, value=e.value, dtype=e.dtype)


def _recompute(steps: list[Step], found: tuple[int, Output, list[int]],
               new_value: Callable[[str, tuple[int, ...], str], Value]) -> list[Step]:
    i, out, users = found
    p = steps[i].region
    assert isinstance(p, ReductionRegion)
    stats, kept = statistics(p, out, new_value)
    name = out.value.name
    new_steps = list(steps)
    new_steps[i] = KernelStep(region=replace(p, outputs=kept), name=steps[i].name)
    extra = [*p.inputs, *stats.values()]
    for j in users:
        r = steps[j].region
        make = _rebuild(p, out, stats, tuple(r.shape))
        outs = [Output(o.value, _replaced(o.expr, name, make), o.domain) for o in r.outputs]
        region = replace(r, outputs=outs)
        if isinstance(r, ReductionRegion):
            region = replace(region, reductions=[replace(x, expr=_replaced(x.expr, name, make)) for x in r.reductions])
        read = set().union(*(_names(e) for e in _exprs(region)))
        inputs = [v for v in r.inputs if v.name != name]
        inputs += [v for v in extra if v.name in read and all(x.name != v.name for x in inputs)]
        new_steps[j] = KernelStep(region=replace(region, inputs=inputs), name=steps[j].name)
    return new_steps


def _names(e: Expr) -> set[str]:
    out = {e.ref} if e.op == "input" else set()
    return out | gathered(e) | set().union(*(_names(a) for a in e.args))  # type: ignore[return-value]


def recompute_gathered(program: Program, keep: frozenset[str] = frozenset()) -> Program:
    """``program`` with every reduction output that later kernels only gather from, sparsely,
    recomputed at the gathered positions instead of stored (module doc); kernels named in ``keep``
    stay as they are."""
    new_value = value_factory(program)
    steps = list(program.steps)
    outputs = program.live_out()
    while (found := _candidate(steps, outputs, keep)) is not None:
        steps = _recompute(steps, found, new_value)
    return replace(program, steps=steps)
