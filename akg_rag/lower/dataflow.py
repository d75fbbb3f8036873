"""Dataflow of a program's steps: which step writes each value and which steps read it.

Passes that move work between kernels after partitioning (:mod:`akg_rag.lower.refinement`,
:mod:`akg_rag.lower.recompute`) ask it whether a value has one reader, where it is made, and
what reads it before a given step.
"""

from __future__ import annotations

import dataclasses

from akg_rag.lower.region import (FallbackStep, KernelStep, PointwiseRegion, ReductionRegion, Step, Value, ViewStep,
                                  expr_inputs)


def reads(step: Step) -> list[str]:
    """Names of the values a step reads."""
    from akg_rag.lower.execute import region_values

    if isinstance(step, KernelStep):
        written = {o.value.name for o in step.region.outputs}
        return [v.name for v in region_values(step.region) if v.name not in written]
    if isinstance(step, ViewStep):
        return [step.src.name]
    if isinstance(step, FallbackStep):
        out: list[str] = []

        def walk(x: object) -> None:
            if isinstance(x, Value):
                out.append(x.name)
            elif isinstance(x, (list, tuple)):
                for y in x:
                    walk(y)
            elif isinstance(x, dict):
                for y in x.values():
                    walk(y)

        walk(step.args)
        walk(step.kwargs)
        return out
    return []


def writes(step: Step) -> list[str]:
    """Names of the values a step writes."""
    if isinstance(step, KernelStep):
        return [o.value.name for o in step.region.outputs]
    if isinstance(step, ViewStep):
        return [step.out.name]
    if isinstance(step, FallbackStep):
        return [v.name for v in step.outs]
    return []


def step_graph(steps: list[Step]) -> tuple[dict[str, int], dict[str, list[int]]]:
    """(value -> the step writing it, value -> the steps reading it)."""
    producer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    for k, st in enumerate(steps):
        for name in writes(st):
            producer[name] = k
        for name in reads(st):
            readers.setdefault(name, []).append(k)
    return producer, readers


def drop_dead_writes(steps: list[Step], outputs: list[Value]) -> list[Step]:
    """``steps`` without the writes nothing reads: a kernel's outputs that no later step and no
    program output reads are left out (a region stores a large shared expression so that other
    regions can read it; when every reader ended up in the same region, which inlines it, the
    store is dead traffic), a kernel none of whose outputs is read goes, and so does a view
    nothing reads. A pointwise or reduction region also drops the inputs only those outputs read.
    Torch fallbacks always stay."""
    live = {v.name for v in outputs}
    kept: list[Step] = []
    for st in reversed(steps):
        if isinstance(st, KernelStep):
            region = st.region
            outs = [o for o in region.outputs if o.value.name in live]
            if not outs:
                continue
            if len(outs) != len(region.outputs):
                region = dataclasses.replace(region, outputs=outs)  # type: ignore[type-var]
                if isinstance(region, (PointwiseRegion, ReductionRegion)):
                    exprs = [o.expr for o in outs]
                    if isinstance(region, ReductionRegion):
                        exprs += [r.expr for r in region.reductions]
                    used = {name for e in exprs for name in expr_inputs(e)}
                    region = dataclasses.replace(region, inputs=[v for v in region.inputs if v.name in used])
                st = KernelStep(region=region, name=st.name)
        elif isinstance(st, ViewStep) and st.out.name not in live:
            continue
        live.update(reads(st))
        kept.append(st)
    return kept[::-1]
