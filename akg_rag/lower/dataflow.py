"""Dataflow of a program's steps: which step writes each value and which steps read it.

Passes that move work between kernels after partitioning (:mod:`akg_rag.lower.refinement`,
:mod:`akg_rag.lower.recompute`) ask it whether a value has one reader, where it is made, and
what reads it before a given step.
"""

from __future__ import annotations

from akg_rag.lower.region import FallbackStep, KernelStep, Step, Value, ViewStep


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
