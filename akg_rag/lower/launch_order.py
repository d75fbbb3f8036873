"""The order ``forward`` issues a program's steps in: the heaviest ready kernel first.

A GPU call is timed from before its first launch to after its last. Everything the host does before
the kernel that moves most of the bytes -- the argument checks, allocations and launches of smaller
kernels it does not depend on -- runs while the device waits; the same host work issued after that
launch overlaps it. So the first step issued is the ready one moving the most bytes (its tensors'
sizes), with the host views it needs (a view weighs what its heaviest consumer weighs); from then
on the device has work: a consumer of the step just issued comes next where one is ready (its
input still in L2), else the program's own order as far as the data allows. Steps left to torch keep
their relative order (an aten op may draw random numbers or write in place), so a chain of
dependent steps comes out as it went in.
"""

from __future__ import annotations

from akg_rag.lower.region import FallbackStep, KernelStep, Program, Step, Value, ViewStep


def _itemsize(dtype: str) -> int:
    import torch

    return getattr(torch, dtype).itemsize if hasattr(torch, dtype) else 4


def _nbytes(v: Value) -> int:
    n = 1
    for s in v.shape:
        n *= int(s)
    return n * _itemsize(v.dtype)


def _reads_writes(step: Step) -> tuple[list[Value], list[Value]]:
    if isinstance(step, KernelStep):
        from akg_rag.lower.execute import region_values

        outs = [o.value for o in step.region.outputs]
        out_names = {v.name for v in outs}
        return [v for v in region_values(step.region) if v.name not in out_names], outs
    if isinstance(step, ViewStep):
        return [step.src], [step.out]
    args = [a for a in (*step.args, *step.kwargs.values()) if isinstance(a, Value)]
    return args, list(step.outs)


def _in_place(op: str) -> bool:
    """Whether an aten op (``aten.add_.Tensor``, ``aten.add.out``) writes into an argument."""
    parts = op.split(".")
    return (len(parts) > 1 and parts[1].endswith("_")) or parts[-1].startswith("out")


def launch_order(program: Program) -> list[Step]:
    """``program.steps`` in the order ``forward`` issues them (see the module docstring); the
    steps as they are when a value is defined twice or an op left to torch writes in place (no
    reordering is then safe to prove)."""
    steps = program.steps
    if any(isinstance(s, FallbackStep) and _in_place(s.op) for s in steps):
        return list(steps)
    rw = [_reads_writes(s) for s in steps]
    producer: dict[str, int] = {}
    for i, (_, writes) in enumerate(rw):
        for v in writes:
            if v.name in producer:
                return list(steps)
            producer[v.name] = i
    deps: list[set[int]] = [set() for _ in steps]
    users: list[set[int]] = [set() for _ in steps]
    last_fallback = None
    for i, (reads, _) in enumerate(rw):
        for v in reads:
            j = producer.get(v.name)
            if j is not None and j != i:
                deps[i].add(j)
        if isinstance(steps[i], FallbackStep):
            if last_fallback is not None:
                deps[i].add(last_fallback)
            last_fallback = i
        for j in deps[i]:
            users[j].add(i)
    feeds: list[set[int]] = []   # the kernels and torch ops a step reads from, through views
    for i in range(len(steps)):
        feeds.append(set().union(*(feeds[j] if isinstance(steps[j], ViewStep) else {j} for j in deps[i])))
    weight = [0] * len(steps)
    for i in reversed(range(len(steps))):   # consumers come after their producers in the program
        if isinstance(steps[i], ViewStep):
            weight[i] = max((weight[u] for u in users[i]), default=0)
        else:
            reads, writes = rw[i]
            weight[i] = sum(_nbytes(v) for v in {v.name: v for v in (*reads, *writes)}.values())
    waiting = [len(d) for d in deps]
    ready = [i for i in range(len(steps)) if not waiting[i]]
    order: list[Step] = []
    started = False   # a kernel or torch op has been issued: the device is busy from here on
    last = -1
    while ready:
        # first the heaviest ready step (and the views it needs); once the device has work, a
        # consumer of the step just issued (its input still in L2), else the program's own order
        if started:
            i = min(ready, key=lambda k: (last not in feeds[k], k))
        else:
            i = min(ready, key=lambda k: (-weight[k], k))
        ready.remove(i)
        order.append(steps[i])
        if not isinstance(steps[i], ViewStep):
            started, last = True, i
        for u in sorted(users[i]):
            waiting[u] -= 1
            if not waiting[u]:
                ready.append(u)
    return order if len(order) == len(steps) else list(steps)
