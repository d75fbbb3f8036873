"""The order ``forward`` issues a program's steps in: the heaviest ready kernel first.

A GPU call is timed from before its first launch to after its last. Everything the host does before
the kernel that moves most of the bytes -- the argument checks, allocations and launches of smaller
kernels it does not depend on -- runs while the device waits; the same host work issued after that
launch overlaps it. So the first launch is the step moving the most bytes (its tensors' sizes)
among those that need no other kernel or torch op first, preceded only by the host views it
reads through; from then on the device has work: a consumer of the step just issued comes next
where one is ready (its input still in L2), else the program's own order as far as the data
allows. Steps left to torch keep
their relative order (an aten op may draw random numbers or write in place), so a chain of
dependent steps comes out as it went in.
"""

from __future__ import annotations

from akg_rag.lower.region import FallbackStep, KernelStep, Program, Step, Value, ViewStep


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
    # the first launch: the heaviest step that needs no kernel or torch op before it (only views)
    first = [i for i in range(len(steps)) if not isinstance(steps[i], ViewStep) and not feeds[i]]
    target = max(first, key=lambda i: (_weight(rw[i]), -i)) if first else None
    views: set[int] = set()          # the views the first launch reads through
    todo = [target] if target is not None else []
    while todo:
        for j in deps[todo.pop()]:
            views.add(j)
            todo.append(j)
    waiting = [len(d) for d in deps]
    ready = [i for i in range(len(steps)) if not waiting[i]]
    order: list[Step] = []
    last = target   # the step whose consumers come next (their input still in L2)
    pending = target is not None   # the first launch not issued yet: only it and its views go
    while ready:
        if pending:
            i = min(k for k in ready if k in views or k == target)
            pending = i != target
        else:
            i = min(ready, key=lambda k: (last not in feeds[k], k))
        ready.remove(i)
        order.append(steps[i])
        if not isinstance(steps[i], ViewStep):
            last = i
        for u in sorted(users[i]):
            waiting[u] -= 1
            if not waiting[u]:
                ready.append(u)
    return order if len(order) == len(steps) else list(steps)


def _weight(rw: tuple[list[Value], list[Value]]) -> int:
    """Bytes a step's tensors hold, each counted once."""
    reads, writes = rw
    return sum(v.nbytes for v in {v.name: v for v in (*reads, *writes)}.values())
