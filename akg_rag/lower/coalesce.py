"""Merging a region's adjacent dims that every tensor treats alike (dimension coalescing).

A pointwise or reduction region over ``[N, C, H, W]`` whose tensors all have the full extent of
``H`` and ``W`` (or all broadcast over both), with both dims reduced or both kept, computes the
same thing over ``[N, C, H*W]``. The merged region's kernel splits each flat index into fewer
coordinates: every ``%`` and ``//`` by a run-time size that disappears is integer work removed
from each element of a memory-bound loop (a norm over all of a 4-D tensor decomposed each element
into four coordinates twice). The host reshapes inputs before the kernel and outputs after it;
``reshape`` is free for the contiguous tensors a program allocates.

Left alone: regions with positional leaves (``index``, ``gather``: their dims are the region's),
and the full dims of an input that comes from a strided view (a permute, an expand, a slice):
merging those would make ``reshape`` copy.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from akg_rag.lower.region import (Expr, FallbackStep, KernelStep, Output, PointwiseRegion, Program, Reduction,
                                  ReductionRegion, Step, Value, ViewStep, expr_ops)

# host views after which a value is still laid out like a fresh contiguous tensor
_CONTIGUOUS_VIEWS = {"reshape", "view", "unsqueeze", "squeeze"}


def region_exprs(region: PointwiseRegion | ReductionRegion) -> list[Expr]:
    """Every expression of a pointwise or reduction region: outputs', then reductions'."""
    out = [o.expr for o in region.outputs]
    if isinstance(region, ReductionRegion):
        out += [r.expr for r in region.reductions]
    return out


def strided_values(steps: list[Step]) -> set[str]:
    """Names of values made by a chain of host views that may leave them non-contiguous."""
    made = {s.out.name: s for s in steps if isinstance(s, ViewStep)}
    out: set[str] = set()
    for name in made:
        s: ViewStep | None = made[name]
        while s is not None:
            if s.op not in _CONTIGUOUS_VIEWS:
                out.add(name)
                break
            s = made.get(s.src.name)
    return out


def _reduced(shape: tuple[int, ...], reduced: set[int], g: list[int]) -> bool:
    """Whether a group of dims is reduced: as its first dim of extent > 1 (a dim of extent 1
    reduces or keeps nothing), else as its first dim."""
    big = [x for x in g if shape[x] != 1]
    return (big[0] if big else g[0]) in reduced


def _groups(shape: tuple[int, ...], reduced: set[int], patterns: list[tuple[str, ...]],
            ones: bool = True) -> list[list[int]]:
    """Runs of adjacent dims that can merge. ``patterns`` has one entry per input: per dim 'F' (the
    full extent), 'B' (broadcast) or 'S' (a full dim of a strided input: merges with nothing).
    With ``ones`` a dim of extent 1 merges with its neighbours whether reduced or kept (the
    instance norm's ``[1, N*C, H*W]`` view, reduced over dims 0 and 2, is ``[N*C, H*W]``)."""
    groups: list[list[int]] = []
    for d in range(len(shape)):
        if groups:
            g = groups[-1]
            ok = (d in reduced) == _reduced(shape, reduced, g) or (
                ones and (shape[d] == 1 or all(shape[x] == 1 for x in g)))
            for pat in patterns:
                if not ok:
                    break
                mine = {pat[x] for x in g if shape[x] != 1}
                if shape[d] != 1:
                    mine.add(pat[d])
                ok = mine <= {"F"} or mine <= {"B"}
            if ok:
                g.append(d)
                continue
        groups.append([d])
    return groups


def coalesce(steps: list[Step], new_value: Callable[[str, tuple[int, ...], str], Value],
             keep: frozenset[str] = frozenset()) -> list[Step]:
    """The steps with each pointwise and reduction region over as few dims as it allows (module
    doc); the kernels named in ``keep`` stay as planned."""
    strided = strided_values(steps)
    out: list[Step] = []
    for step in steps:
        region = step.region if isinstance(step, KernelStep) and step.name not in keep else None
        if not isinstance(region, (PointwiseRegion, ReductionRegion)) or len(region.shape) < 2 or \
                any({"index", "gather"} & expr_ops(e) for e in region_exprs(region)):
            out.append(step)
            continue
        shape = region.shape
        n = len(shape)
        reduced = set(region.dims) if isinstance(region, ReductionRegion) else set()
        aligned = {v.name: (1,) * (n - len(v.shape)) + tuple(v.shape) for v in region.inputs}
        patterns = [tuple("B" if aligned[v.name][d] == 1 else ("S" if v.name in strided else "F")
                          for d in range(n)) for v in region.inputs]
        groups = _groups(shape, reduced, patterns)
        if reduced and not any(_reduced(shape, reduced, g) for g in groups):
            groups = _groups(shape, reduced, patterns, ones=False)   # reduced over extents of 1 only
        if len(groups) == n:
            out.append(step)
            continue
        new_shape = tuple(math.prod(shape[d] for d in g) for g in groups)
        new_dims = tuple(i for i, g in enumerate(groups) if _reduced(shape, reduced, g))
        rename: dict[str, str] = {}
        inputs = []
        for v in region.inputs:
            merged = tuple(math.prod(aligned[v.name][d] for d in g) for g in groups)
            m = new_value(f"{v.name}_m", merged, v.dtype)
            out.append(ViewStep(out=m, src=v, op="reshape", args=(merged,)))
            rename[v.name] = m.name
            inputs.append(m)
        after: list[Step] = []
        outputs = []
        for o in region.outputs:
            full = o.domain == "full"
            merged = new_shape if full else tuple(1 if i in new_dims else s for i, s in enumerate(new_shape))
            m = new_value(f"{o.value.name}_m", merged, o.value.dtype)
            outputs.append(Output(m, renamed(o.expr, rename), o.domain))
            after.append(ViewStep(out=o.value, src=m, op="reshape", args=(tuple(o.value.shape),)))
        if isinstance(region, ReductionRegion):
            new = ReductionRegion(inputs=inputs, shape=new_shape, dims=new_dims,
                                  reductions=[Reduction(r.name, r.kind, renamed(r.expr, rename))
                                              for r in region.reductions], outputs=outputs)
        else:
            new = PointwiseRegion(inputs=inputs, outputs=outputs, shape=new_shape)
        out.append(KernelStep(region=new, name=step.name))
        out.extend(after)
    return out


def renamed(e: Expr, rename: dict[str, str], inline: dict[str, Expr] | None = None) -> Expr:
    """``e`` with its input leaves renamed by ``rename``, and those named in ``inline`` replaced
    by an expression."""
    if inline and e.op == "input" and e.ref in inline:
        return inline[e.ref]
    args = tuple(renamed(a, rename, inline) for a in e.args)
    ref = rename.get(e.ref, e.ref) if e.op == "input" else e.ref
    if args == e.args and ref == e.ref:
        return e
    return Expr(e.op, args=args, ref=ref, value=e.value, dtype=e.dtype)


def value_factory(program: Program) -> Callable[[str, tuple[int, ...], str], Value]:
    """``new_value(base, shape, dtype)``: a Value named ``base`` (or ``base_1``, ...) that no value
    of ``program`` and no earlier call has taken, for passes that add values to a program."""
    from akg_rag.lower.execute import region_values

    taken = {v.name for v in program.inputs} | {v.name for v in program.params.values()} | set(program.constants)
    for st in program.steps:
        if isinstance(st, KernelStep):
            taken |= {v.name for v in region_values(st.region)}
        elif isinstance(st, ViewStep):
            taken |= {st.out.name, st.src.name}
        elif isinstance(st, FallbackStep):
            taken |= {v.name for v in st.outs}

    def new_value(base: str, shape: tuple[int, ...], dtype: str) -> Value:
        name, k = base, 1
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        return Value(name, tuple(shape), dtype)

    return new_value


def coalesce_program(program: Program, keep: frozenset[str] = frozenset()) -> Program:
    """``program`` with its regions coalesced (:func:`coalesce`) but those of the kernels named in
    ``keep`` (a sketch given for a kernel was written against the region as partitioned); new
    values get unused names."""
    return dataclasses.replace(program, steps=coalesce(program.steps, value_factory(program), keep))


def written_as_partitioned(program: Program, sketches: dict[str, str] | None) -> frozenset[str]:
    """Kernels whose given sketch declares the tensors of the region as partitioned, not coalesced
    (a design written against an earlier plan, or by hand): those stay uncoalesced so that it binds.
    A sketch naming the coalesced region's tensors (as ``sketch_only`` reports them) is lowered
    against the coalesced region."""
    from akg_rag.lower.execute import region_values
    from akg_rag.sketch import check_sketch

    keep = set()
    regions = {s.name: s.region for s in program.steps if isinstance(s, KernelStep)}
    for name, text in (sketches or {}).items():
        if name not in regions:
            continue
        declared = {t.name for t in check_sketch(text).tensors if t.direction != "temp"}
        if declared == {v.name for v in region_values(regions[name])}:
            keep.add(name)
    return frozenset(keep)
