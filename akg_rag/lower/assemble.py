"""Assemble: a partitioned ``Program`` and its generated kernels become one candidate file.

The candidate holds, in order: the task's constructor as ``_Weights`` (:mod:`akg_rag.lower.weights`),
the kernels (Triton: each backend module pasted in; C++: one ``load_inline`` module holding every
kernel, built at import), and ``ModelNew``, whose ``forward`` runs the program's steps: host views,
output allocation and kernel calls, and the torch fallbacks and library cores as
``torch.ops.aten`` calls (a candidate with any of either is *partial*). :func:`lower_task` runs the
whole pipeline, in either core mode (``cores="generated"``: every GEMM and conv is a generated
kernel; ``cores="library"``: they stay cuBLAS/cuDNN/oneDNN calls and only their tails are
generated).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from akg_rag.errors import ConfigError
from akg_rag.lower.launch_order import launch_order
from akg_rag.lower.library import CORE_MODES
from akg_rag.lower.region import FallbackStep, KernelStep, LibraryStep, Program, Value, ViewStep
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
    sizes: dict[str, int] = field(default_factory=dict)      # its size symbols at the task's shapes
    tuning: dict[str, Any] = field(default_factory=dict)     # where its tunables came from (lower/tuned.py)


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
    written: list[str] = field(default_factory=list)   # state updates forward also reads: written back
    program: str = ""                          # readable listing of the partition
    cores: str = "generated"                   # core mode: "generated" or "library"
    library: list[str] = field(default_factory=list)   # library cores (aten ops), in order

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


class NoLibraryForm(ConfigError):
    """The task has no library form: no GEMM or conv core, or nothing left to generate once its
    cores are library calls (a single conv or matmul: that form would be pure torch), or only
    kernels that move data (a triangle mask of the core's output)."""


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


def _forward(program: Program, positions: list[int], kernels: dict[str, KernelSource], dsl: str,
             method: str = "forward") -> list[str]:
    """Lines of ``ModelNew.forward`` (or of the per-shape ``method``), indented for the class body."""
    lines = [f"    def {method}(self, *args):"]
    for v, pos in zip(program.inputs, positions):
        lines.append(f"        {v.name} = args[{pos}]")
    for path, v in program.params.items():
        lines.append(f"        {v.name} = {_access('self._w', path)}")
    for name in program.constants:
        lines.append(f"        {name} = self.{name}")
    first = program.inputs[0].name if program.inputs else next(iter(program.params.values())).name
    lines.append(f"        dev = {first}.device")
    call = "_ext." if dsl == "cpp" else ""
    for step in launch_order(program):   # the heaviest ready kernel first
        if isinstance(step, ViewStep):
            if step.op == "__getitem__":
                lines.append(f"        {step.out.name} = {step.src.name}[{render_arg(step.args[0])[1:-1]}]")
            else:
                args = ", ".join(render_arg(a) for a in step.args)
                lines.append(f"        {step.out.name} = {step.src.name}.{step.op}({args})")
        elif isinstance(step, FallbackStep):
            outs = ", ".join(v.name for v in step.outs) + ("," if len(step.outs) > 1 else "")
            args = [_literal(a) for a in step.args] + [f"{k}={_literal(v)}" for k, v in step.kwargs.items()]
            why = f"library {step.kind} core" if isinstance(step, LibraryStep) else "left to torch"
            lines.append(f"        {outs} = torch.ops.{step.op}({', '.join(args)})  # {why}")
        else:
            for o in step.region.outputs:
                v = o.value
                lines.append(f"        {v.name} = torch.empty({tuple(v.shape)}, dtype=torch.{v.dtype}, device=dev)")
            src = kernels[step.name]
            shapes = _region_shapes(step)
            args = [n if shapes[n] else f"{n}.reshape(1)" for n in src.tensors]
            lines.append(f"        {call}{src.entry}({', '.join(args)})")
    for path, v in program.writes:  # state forward also reads: the next call sees the update
        lines.append(f"        {_access('self._w', path)}.copy_({v.name})")
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


def _dispatch(programs: list[Program], positions: list[int]) -> list[str]:
    """``forward`` of a dynamic-shape task: one captured program per input set, picked by the input
    shapes (allocation sizes and some decomposition constants are those of the capture)."""
    table = []
    for k, prog in enumerate(programs):
        key = tuple(tuple(v.shape) for v in prog.inputs)
        table.append(f"            {key!r}: self._forward_{k},")
    where = ", ".join(f"args[{p}]" for p in positions)
    return ["    def forward(self, *args):",
            f"        shapes = tuple(tuple(t.shape) for t in ({where},))",
            "        run = {", *table, "        }.get(shapes)",
            "        if run is None:",
            "            raise ValueError(f'input shapes {shapes} are none of the task input sets this candidate '",
            "                             'was lowered for; lower the task again with these shapes')",
            "        return run(*args)"]


# The kernels read plain tensor attributes of the model (``self.h = torch.zeros(...)`` in the
# constructor): ``.to(device)`` moves parameters and buffers only, so the candidate moves those too.
_MOVES_ATTRIBUTES = [
    "",
    "    def _apply(self, fn, recurse=True):",
    "        super()._apply(fn, recurse)",
    "        for mod in self._w.modules():",
    "            for key, val in list(vars(mod).items()):",
    "                if isinstance(val, torch.Tensor) and not isinstance(val, torch.nn.Parameter):",
    "                    setattr(mod, key, fn(val))",
    "        return self",
]


def assemble(program: Program | list[Program], positions: list[int], task_source: str, dsl: str,
             kernels: dict[str, KernelSource], path: str = "task.py") -> str:
    """Candidate source for ``program``; ``kernels`` maps each KernelStep name to its backend source
    and ``positions`` gives forward's argument index of each program input. A list of programs (one
    per input set of a dynamic-shape task, kernel names distinct) gives a forward that dispatches on
    the input shapes."""
    programs = program if isinstance(program, list) else [program]
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
    constants = {name: t for prog in programs for name, t in prog.constants.items()}
    for name, t in constants.items():
        cls.append(f"        self.register_buffer({name!r}, {_tensor_literal(t)}, persistent=False)")  # type: ignore[arg-type]
    if any(prog.attributes for prog in programs):
        cls += _MOVES_ATTRIBUTES
    cls.append("")
    if len(programs) == 1:
        cls += _forward(programs[0], positions, kernels, dsl)
    else:
        cls += _dispatch(programs, positions)
        for k, prog in enumerate(programs):
            cls += [""] + _forward(prog, positions, kernels, dsl, f"_forward_{k}")
    parts += ["# ---- the candidate " + "-" * 60, "\n".join(cls), ""]
    return "\n".join(parts)


def planned(program: Program, keep: frozenset[str] = frozenset()) -> Program:
    """A partitioned program as it is emitted: dims every tensor treats alike merged
    (:mod:`akg_rag.lower.coalesce`), then pointwise regions that read another region's output
    through a reshape moved into it (:mod:`akg_rag.lower.refinement`), then reduction outputs that
    later kernels only gather from recomputed where they are gathered (:mod:`akg_rag.lower.recompute`);
    the kernels in ``keep`` (given sketches written against the partitioned regions) stay as
    partitioned."""
    from akg_rag.lower.coalesce import coalesce_program
    from akg_rag.lower.recompute import recompute_gathered
    from akg_rag.lower.refinement import fuse_reshaped

    return recompute_gathered(fuse_reshaped(coalesce_program(program, keep), keep), keep)


def lower_task(task_path: str | Path, dsl: str, backend: str, *, sketch_only: bool = False,
               source: str | None = None, sketches: dict[str, str] | None = None,
               cores: str = "generated", tuning: Any = None, stream: bool = False) -> tuple[str | None, LoweringReport]:
    """Capture, partition, emit and lower a task; returns (candidate source, report).

    ``cores="library"`` keeps every GEMM-like and conv-like core a vendor-library call through
    torch and generates the rest (a *partial* candidate; ``report.library`` names the cores); it
    raises :class:`NoLibraryForm` when the task has no such core or nothing else to generate.

    With ``sketch_only`` nothing is lowered and the source is None (the report holds the
    sketches). ``sketches`` replaces the emitted sketch of the named kernels (``{"k0": text}``) by
    another design of the same region (an LLM designer's, say): it is validated and lowered by the
    same backend, and must declare the same tensors in the same order as the emitted one.
    ``tuning`` (a :class:`~akg_rag.lower.tuned.StoredTuning`) sets each kernel whose key is in the
    tuning store to the stored tunables (the kernel's report says so). ``stream``: on Triton for
    CUDA, a reduction the split form would take whose rows registers cannot hold takes the
    streaming cooperative form (akg_rag/lower/emit/stream.py; off by default). Raises
    ``TaskError`` for a task that cannot be captured, ``SketchError`` when a sketch does not
    validate or lower, ``ConfigError`` for an unknown target."""
    from akg_rag.lower.capture import capture
    from akg_rag.lower.coalesce import written_as_partitioned
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.listing import format_program
    from akg_rag.lower.partition import partition
    from akg_rag.lower.tuning_key import region_sizes
    from akg_rag.sketch import check_sketch
    from akg_rag.task import read_source

    check_target(dsl, backend)
    if cores not in CORE_MODES:
        raise ConfigError(f"unknown core mode {cores!r}; allowed: {', '.join(CORE_MODES)}")
    path = Path(task_path)
    text = read_source(path) if source is None else source
    cap = capture(path, text)
    first = partition(cap, cores)
    keep = written_as_partitioned(first, sketches)
    programs = [planned(first, keep)]
    dropped = list(cap.dropped)
    # a dynamic-shape task: one program per distinct input set, its kernels renamed apart
    seen = {tuple(tuple(v.shape) for v in programs[0].inputs)}
    for k in range(1, cap.input_sets):
        prog = planned(partition(capture(path, text, input_set=k), cores), keep)
        key = tuple(tuple(v.shape) for v in prog.inputs)
        if key in seen:
            continue
        seen.add(key)
        for st in prog.steps:
            if isinstance(st, KernelStep):
                st.name = f"{st.name}_s{k}"
        programs.append(prog)
    program = programs[0]
    steps = [s for prog in programs for s in prog.steps if isinstance(s, KernelStep)]
    library = list(dict.fromkeys(s.op for prog in programs for s in prog.steps if isinstance(s, LibraryStep)))
    if cores == "library":
        _check_library_form(path, library, steps)
    lower = None if sketch_only else _backend(dsl)
    reports, sources = [], {}
    unknown = sorted(set(sketches or {}) - {s.name for s in steps})
    if unknown:
        raise ConfigError(f"no kernel named {', '.join(unknown)} in this task's plan; "
                          f"kernels: {', '.join(s.name for s in steps)}")
    for step in steps:
        gpu = (dsl, backend) == ("triton", "cuda")
        sketch_text = emit_sketch(step.region, step.name, barriers=gpu, tensor_cores=gpu, stream=stream)
        sketch = check_sketch(sketch_text)
        if sketches and step.name in sketches:
            given = check_sketch(sketches[step.name])
            _same_tensors(step.name, sketch, given)
            sketch_text, sketch = sketches[step.name], given
        src = lower(sketch, step.name) if lower else None
        sizes = region_sizes(sketch, step.region) if src is not None else {}
        applied: dict[str, Any] = {}
        if src is not None and tuning is not None:
            src, applied = tuning.apply(step.name, sketch_text, sketch, src, sizes, dsl, backend)
        if src is not None:
            sources[step.name] = src
        reports.append(KernelReport(step.name, step.region.kind, sketch_text,
                                    [o.value.name for o in step.region.outputs],
                                    dict(src.tunables) if src else {}, sizes, applied))
    fallbacks = list(dict.fromkeys(s.op for prog in programs for s in prog.steps
                                   if isinstance(s, FallbackStep) and not isinstance(s, LibraryStep)))
    report = LoweringReport(task=str(path), dsl=dsl, backend=backend, kernels=reports,
                            fallbacks=fallbacks, views=sum(isinstance(s, ViewStep) for s in program.steps),
                            partial=bool(fallbacks or library), dropped=dropped, written=list(cap.written),
                            program="\n\n".join(format_program(p) for p in programs),
                            cores=cores, library=library)
    if sketch_only:
        return None, report
    if not steps:
        raise ConfigError(f"{path}: nothing to generate (every op is a view or a torch fallback: "
                          f"{', '.join(fallbacks) or 'none'})")
    return assemble(programs, cap.input_positions, text, dsl, sources, str(path)), report


def _check_library_form(path: Path, library: list[str], steps: list[KernelStep]) -> None:
    """A library form exists only with a library core and at least one generated kernel."""
    if not library:
        raise NoLibraryForm(f"{path}: no GEMM or conv core, so the library form would be the generated "
                            "one; lower it with cores='generated'")
    if not steps:
        raise NoLibraryForm(f"{path}: with its cores ({', '.join(library)}) as library calls nothing is "
                            "left to generate (a single-op task keeps its generated kernel)")
    if all(_moves_data_only(step.region) for step in steps):
        raise NoLibraryForm(f"{path}: with its cores ({', '.join(library)}) as library calls what is left "
                            "only moves data (a copy, a mask with constants): torch would do all the work")


# ops that pass one operand's value through unchanged (a select by a condition on positions)
_SELECT = {"where": (1, 2)}


def _moves_data_only(region) -> bool:
    """True when every output of a pointwise region is an input element, a gathered element or a
    constant, chosen by conditions on positions only (``where(i >= j, x, 0)``: a triangle mask):
    a kernel that computes nothing, which the verifier rejects as no work beside torch's."""
    from akg_rag.lower.region import PointwiseRegion

    if not isinstance(region, PointwiseRegion):
        return False

    def positional(e) -> bool:  # a condition built from positions and constants only
        return e.op in ("index", "const", "numel") or (e.op not in ("input", "gather", "reduced", "acc")
                                                       and all(positional(a) for a in e.args))

    def value(e) -> bool:       # the selected value: an element moved or a constant
        if e.op in ("input", "gather", "const"):
            return True
        if e.op in _SELECT and e.args:
            cond, *branches = e.args
            return positional(cond) and all(value(b) for b in branches)
        return False

    return all(value(o.expr) for o in region.outputs)


def _same_tensors(name: str, planned, given) -> None:
    """A replacement sketch must bind to the region's tensors: same names, order and directions."""
    from akg_rag.errors import SketchError

    want = [(t.name, t.direction) for t in planned.tensors if t.direction != "temp"]
    got = [(t.name, t.direction) for t in given.tensors if t.direction != "temp"]
    if want != got:
        raise SketchError(f"the sketch for {name} declares tensors {got}; the region needs {want} "
                          "(names, order and directions)", given.line, given.column)


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
