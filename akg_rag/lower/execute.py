"""Running a partitioned ``Program`` on real tensors, with a pluggable kernel runner.

This is ``ModelNew.forward`` without the generated source: host views, torch fallbacks and output
allocation as the assembled candidate does them, and each kernel handed to ``run_kernel``. Tests
pass the sketch interpreter as the runner (emit, then interpret) to check a partition against the
task on tiny tensors; nothing here depends on a backend.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import torch
from torch.utils._pytree import tree_map

from akg_rag.lower.region import FallbackStep, KernelStep, Program, Region, Value, ViewStep


def region_values(region: Region) -> list[Value]:
    """Every tensor a region's kernel reads or writes: core operands, inputs, then outputs."""
    vals: list[Value] = []
    computed = getattr(region, "prologue", None) is not None   # a pool whose input is computed in it
    for attr in ("a", "b", "x", "w", "bias"):
        v = getattr(region, attr, None)
        if isinstance(v, Value) and not (attr == "x" and computed):
            vals.append(v)
    vals += list(getattr(region, "prologue_inputs", [])) + list(region.inputs) + [o.value for o in region.outputs]
    seen: dict[str, Value] = {}
    for v in vals:
        seen.setdefault(v.name, v)
    return list(seen.values())


def aten_op(qualified: str) -> Any:
    """``"aten.sort.default"`` -> ``torch.ops.aten.sort.default``."""
    return functools.reduce(getattr, qualified.split("."), torch.ops)


def run_program(program: Program, params: dict[str, torch.Tensor], inputs: list[torch.Tensor],
                run_kernel: Callable[[KernelStep, dict[str, torch.Tensor]], None]) -> list[torch.Tensor]:
    """Execute ``program``; ``params`` maps parameter paths to tensors, ``inputs`` are forward's
    tensor arguments. ``run_kernel(step, env)`` must fill the step's preallocated outputs."""
    device = inputs[0].device if inputs else next(iter(params.values())).device
    env: dict[str, torch.Tensor] = {}
    for v, t in zip(program.inputs, inputs):
        env[v.name] = t
    for path, v in program.params.items():
        env[v.name] = params[path]
    for name, t in program.constants.items():
        env[name] = t.to(device)  # type: ignore[union-attr]

    def arg(x: Any) -> Any:
        if isinstance(x, Value):
            return env[x.name]
        if isinstance(x, torch.device):
            return device
        return x

    for step in program.steps:
        if isinstance(step, ViewStep):
            env[step.out.name] = getattr(env[step.src.name], step.op)(*step.args)
        elif isinstance(step, FallbackStep):
            out = aten_op(step.op)(*tree_map(arg, step.args), **tree_map(arg, step.kwargs))
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            for v, t in zip(step.outs, outs):
                env[v.name] = t
        else:
            for o in step.region.outputs:
                env[o.value.name] = torch.empty(o.value.shape, dtype=getattr(torch, o.value.dtype),
                                                device=device)
            run_kernel(step, env)
    return [env[v.name] for v in program.outputs]
