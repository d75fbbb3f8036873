"""Assemble: a partitioned ``Program`` and its generated kernels become one candidate file.

The candidate holds, in order: the task's constructor as ``_Weights`` (:mod:`akg_rag.lower.weights`),
the kernels (Triton: each backend module pasted in; C++: one ``load_inline`` module holding every
kernel, built at import), and ``ModelNew``, whose ``forward`` runs the program's steps: host views,
output allocation and kernel calls, and the torch fallbacks as ``torch.ops.aten`` calls (a
candidate with any fallback is *partial*). :func:`lower_task` runs the whole pipeline.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from akg_rag.errors import ConfigError
from akg_rag.lower.region import FallbackStep, KernelStep, Program, Value, ViewStep
from akg_rag.lower.source import KernelSource
from akg_rag.lower.views import render_arg
from akg_rag.lower.weights import WEIGHTS_CLASS, weights_source

TARGETS = {("triton", "cuda"), ("cpp", "cpu")}


@dataclass
class KernelReport:
    """One generated kernel."""

    name: str
    kind: str                                  # region kind
    sketch: str                                # the validated sketch text
    outputs: list[str]                         # values it writes
    tunables: dict[str, int] = field(default_factory=dict)


@dataclass
class LoweringReport:
    """What the lowering made of a task."""

    task: str
    dsl: str
    backend: str
    kernels: list[KernelReport]
    fallbacks: list[str]                       # aten ops left to torch, in order
    views: int                                 # host-side view steps
    partial: bool                              # some computation stays a torch call
    dropped: list[str] = field(default_factory=list)   # state updates that reach no output
    program: str = ""                          # readable listing of the partition

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def check_target(dsl: str, backend: str) -> None:
    """Raise ``ConfigError`` for a DSL/backend pair the lowering has no backend for."""
    if (dsl, backend) not in TARGETS:
        allowed = ", ".join(f"{d}/{b}" for d, b in sorted(TARGETS))
        raise ConfigError(f"no lowering for --dsl {dsl} --backend {backend}; supported: {allowed}")


def _literal(x: Any) -> str:
    """Python source for a fallback argument."""
    if isinstance(x, Value):
        return x.name
    if isinstance(x, torch.device):
        return "dev"
    if isinstance(x, (torch.dtype, torch.layout, torch.memory_format)):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return f"float({str(x)!r})"
    if isinstance(x, list):
        return "[" + ", ".join(_literal(a) for a in x) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(_literal(a) for a in x) + ("," if len(x) == 1 else "") + ")"
    return repr(x)


def _access(root: str, path: str) -> str:
    """``self._w.fc.weight``, or a getattr chain where a part is not an identifier (``layers.0``)."""
    out = root
    for part in path.split("."):
        out = f"{out}.{part}" if part.isidentifier() else f"getattr({out}, {part!r})"
    return out


def _tensor_literal(t: torch.Tensor) -> str:
    values = _literal(t.tolist()) if t.dim() else _literal(t.item())
    return f"torch.tensor({values}, dtype={t.dtype})"


def _forward(program: Program, positions: list[int], kernels: dict[str, KernelSource], dsl: str) -> list[str]:
    """Lines of ``ModelNew.forward`` (indented for the class body)."""
    lines = ["    def forward(self, *args):"]
    for v, pos in zip(program.inputs, positions):
        lines.append(f"        {v.name} = args[{pos}]")
    for path, v in program.params.items():
        lines.append(f"        {v.name} = {_access('self._w', path)}")
    for name in program.constants:
        lines.append(f"        {name} = self.{name}")
    first = program.inputs[0].name if program.inputs else next(iter(program.params.values())).name
    lines.append(f"        dev = {first}.device")
    call = "_ext." if dsl == "cpp" else ""
    for step in program.steps:
        if isinstance(step, ViewStep):
            if step.op == "__getitem__":
                lines.append(f"        {step.out.name} = {step.src.name}[{render_arg(step.args[0])[1:-1]}]")
            else:
                args = ", ".join(render_arg(a) for a in step.args)
                lines.append(f"        {step.out.name} = {step.src.name}.{step.op}({args})")
        elif isinstance(step, FallbackStep):
            outs = ", ".join(v.name for v in step.outs) + ("," if len(step.outs) > 1 else "")
            args = [_literal(a) for a in step.args] + [f"{k}={_literal(v)}" for k, v in step.kwargs.items()]
            lines.append(f"        {outs} = torch.ops.{step.op}({', '.join(args)})  # left to torch")
        else:
            for o in step.region.outputs:
                v = o.value
                lines.append(f"        {v.name} = torch.empty({tuple(v.shape)}, dtype=torch.{v.dtype}, device=dev)")
            src = kernels[step.name]
            shapes = _region_shapes(step)
            args = [n if shapes[n] else f"{n}.reshape(1)" for n in src.tensors]
            lines.append(f"        {call}{src.entry}({', '.join(args)})")
    outs = [v.name for v in program.outputs]
    if program.returns_tuple:
        lines.append(f"        return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
    else:
        lines.append(f"        return {outs[0]}")
    return lines


def _region_shapes(step: KernelStep) -> dict[str, tuple[int, ...]]:
    from akg_rag.lower.execute import region_values

    return {v.name: v.shape for v in region_values(step.region)}


def _cpp_module(kernels: dict[str, KernelSource], digest: str) -> list[str]:
    """Python lines building every C++ kernel in one ``load_inline`` module bound to ``_ext``."""
    from akg_rag.lower.cpp import build_cpp_module

    name = f"akg_lower_{digest}"  # one extension name per source: builds never collide
    return [build_cpp_module(list(kernels.values()), name), f"_ext = {name}"]


def assemble(program: Program, positions: list[int], task_source: str, dsl: str,
             kernels: dict[str, KernelSource], path: str = "task.py") -> str:
    """Candidate source for ``program``; ``kernels`` maps each KernelStep name to its backend source
    and ``positions`` gives forward's argument index of each program input."""
    header = ['"""Generated by akg_rag.lower: the task\'s constructor, generated kernels and a forward',
              'that runs them (see the lowering report for fallbacks and regions)."""', "",
              "import torch", "import torch.nn", "",
              ""]
    parts = ["\n".join(header), "# ---- the task's constructor " + "-" * 60, weights_source(task_source, path), ""]
    if dsl == "cpp":
        digest = hashlib.sha256("".join(k.code for k in kernels.values()).encode()).hexdigest()[:12]
        parts += ["# ---- kernels (C++, one extension) " + "-" * 50, "\n".join(_cpp_module(kernels, digest)), ""]
    else:
        for name, k in kernels.items():
            parts += [f"# ---- kernel {name} " + "-" * 60, k.code, ""]
    cls = ["class ModelNew(torch.nn.Module):",
           "    def __init__(self, *args, **kwargs):",
           "        super().__init__()",
           f"        self._w = {WEIGHTS_CLASS}(*args, **kwargs)"]
    for name, t in program.constants.items():
        cls.append(f"        self.register_buffer({name!r}, {_tensor_literal(t)}, persistent=False)")  # type: ignore[arg-type]
    cls.append("")
    cls += _forward(program, positions, kernels, dsl)
    parts += ["# ---- the candidate " + "-" * 60, "\n".join(cls), ""]
    return "\n".join(parts)


def lower_task(task_path: str | Path, dsl: str, backend: str, *, sketch_only: bool = False,
               source: str | None = None) -> tuple[str | None, LoweringReport]:
    """Capture, partition, emit and lower a task; returns (candidate source, report).

    With ``sketch_only`` nothing is lowered and the source is None (the report holds the
    sketches). Raises ``TaskError`` for a task that cannot be captured, ``SketchError`` when an
    emitted sketch does not validate or lower, ``ConfigError`` for an unknown target."""
    from akg_rag.lower.capture import capture
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.listing import format_program
    from akg_rag.lower.partition import partition
    from akg_rag.sketch import check_sketch
    from akg_rag.task import read_source

    check_target(dsl, backend)
    path = Path(task_path)
    text = read_source(path) if source is None else source
    cap = capture(path, text)
    program = partition(cap)
    steps = [s for s in program.steps if isinstance(s, KernelStep)]
    lower = None if sketch_only else _backend(dsl)
    reports, sources = [], {}
    for step in steps:
        sketch_text = emit_sketch(step.region, step.name)
        sketch = check_sketch(sketch_text)
        src = lower(sketch, step.name) if lower else None
        if src is not None:
            sources[step.name] = src
        reports.append(KernelReport(step.name, step.region.kind, sketch_text,
                                    [o.value.name for o in step.region.outputs],
                                    dict(src.tunables) if src else {}))
    fallbacks = [s.op for s in program.steps if isinstance(s, FallbackStep)]
    report = LoweringReport(task=str(path), dsl=dsl, backend=backend, kernels=reports,
                            fallbacks=fallbacks, views=sum(isinstance(s, ViewStep) for s in program.steps),
                            partial=bool(fallbacks), dropped=list(cap.dropped),
                            program=format_program(program))
    if sketch_only:
        return None, report
    if not steps:
        raise ConfigError(f"{path}: nothing to generate (every op is a view or a torch fallback: "
                          f"{', '.join(fallbacks) or 'none'})")
    return assemble(program, cap.input_positions, text, dsl, sources, str(path)), report


def _backend(dsl: str):
    """The sketch -> KernelSource function of a DSL (imported on demand)."""
    try:
        if dsl == "triton":
            from akg_rag.lower.triton import emit_triton
            return emit_triton
        from akg_rag.lower.cpp import emit_cpp
        return emit_cpp
    except ImportError as e:
        raise ConfigError(f"the {dsl} backend is not available ({e}); use --sketch-only") from None
