"""``analyze_task``: trace a KernelBench task on meta tensors and derive its :class:`TaskAnalysis`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import torch
from torch.utils._pytree import tree_flatten

from akg_rag.analysis.canon import canonicalize
from akg_rag.analysis.cost import total_flops
from akg_rag.analysis.graph import build_graph
from akg_rag.analysis.pointwise import pointwise_expr
from akg_rag.analysis.record import TaskAnalysis, TensorSpec
from akg_rag.analysis.text import computation_text, op_name_of
from akg_rag.analysis.trace import MetaRedirect, OpRecorder, Trace, spec_of
from akg_rag.errors import TaskError
from akg_rag.optypes import primary_op_type, sort_op_types
from akg_rag.task import Task, load_task, read_source, source_hash


def _tensors(values: Any) -> list[torch.Tensor]:
    return [t for t in tree_flatten(values)[0] if isinstance(t, torch.Tensor)]


def _nbytes(tensors: list[torch.Tensor]) -> int:
    """Bytes of distinct tensors (each counted once, by identity)."""
    seen: dict[int, torch.Tensor] = {id(t): t for t in tensors}
    return sum(t.numel() * t.element_size() for t in seen.values())


def _call(path: Path, what: str, fn: Any, *args: Any) -> Any:
    """Run task code, turning any failure into a TaskError that names the file and the step."""
    try:
        return fn(*args)
    except TaskError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of task code is a problem of the task file
        hint = ""
        if "forward" in what and "meta" in str(e):
            hint = (" (analysis runs forward on meta tensors, which hold no values: data-dependent"
                    " code such as .item(), nonzero() or boolean-mask indexing cannot be traced)")
        raise TaskError(path, f"{what} raised {type(e).__name__}: {e}{hint}") from None


def _trace(path: Path, source: str) -> tuple[Trace, list[list[TensorSpec]], list[list[TensorSpec]], int]:
    """Load and run the task on meta tensors: (trace of set 0, input specs per set, output specs per
    set, bytes of parameters and buffers)."""
    redirect = MetaRedirect()
    with torch.device("meta"), redirect:
        task: Task = load_task(path, source)
        init = _call(path, "get_init_inputs()", lambda: list(task.get_init_inputs()))
        model = _call(path, "Model(*get_init_inputs())", task.model_cls, *init)
        sets = _call(path, "get_inputs()", task.input_sets)
        state: list[tuple[str, torch.Tensor]] = []
        if isinstance(model, torch.nn.Module):
            state = list(model.named_parameters()) + list(model.named_buffers())
        trace = Trace(module_types=[type(m).__name__ for m in model.modules()]
                      if isinstance(model, torch.nn.Module) else [])
        recorder = OpRecorder(redirect, trace)
        for i, t in enumerate(_tensors(sets[0])):
            trace.input_ids.append(recorder.value_id(t, "input", f"input{i}"))
        for name, t in state:
            recorder.value_id(t, "param", name)
        with torch.no_grad():
            with recorder:
                out = _call(path, "Model.forward on meta tensors", model, *sets[0])
            outputs = [_tensors(out)]
            for inputs in sets[1:]:
                outputs.append(_tensors(_call(path, "Model.forward on meta tensors", model, *inputs)))
        trace.output_ids = [recorder.value_id(t) for t in outputs[0]]
        param_bytes = _nbytes([t for _, t in state])
        in_bytes = _nbytes(_tensors(sets[0]))
        out_bytes = _nbytes([t for t in outputs[0] if all(t is not x for x in _tensors(sets[0]))])
    in_specs = [[spec_of(t) for t in _tensors(s)] for s in sets]
    out_specs = [[spec_of(t) for t in o] for o in outputs]
    return trace, in_specs, out_specs, in_bytes + param_bytes + out_bytes


def _merge(sets: list[list[TensorSpec]]) -> list[TensorSpec]:
    """Specs of the first set with every dimension that differs across sets replaced by -1."""
    first = sets[0]
    merged = []
    for i, spec in enumerate(first):
        shape = list(spec.shape)
        for other in sets[1:]:
            if i >= len(other) or len(other[i].shape) != len(shape):
                shape = [-1] * len(shape)
                continue
            shape = [d if d == o else -1 for d, o in zip(shape, other[i].shape)]
        merged.append(TensorSpec(shape=tuple(shape), dtype=spec.dtype))
    return merged


def _dominant_dtype(*groups: list[TensorSpec]) -> str:
    """The floating dtype covering the most elements, looking at inputs first, then outputs."""
    for specs in groups:
        weight: Counter[str] = Counter()
        for s in specs:
            if getattr(torch, s.dtype, None) is not None and getattr(torch, s.dtype).is_floating_point:
                weight[s.dtype] += max(1, _numel(s.shape))
        if weight:
            return weight.most_common(1)[0][0]
    return "float32"


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= max(d, 1)
    return n


def _dedup(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def analyze_task(path: str | Path, source: str | None = None) -> TaskAnalysis:
    """Analyse a KernelBench-format task without materialising any tensor.

    ``source`` overrides the file's text (the path still names it in errors). Raises ``TaskError``
    naming the file when it does not import, defines no ``Model``, or when building the model,
    making its inputs or running ``forward`` fails.
    """
    p = Path(path)
    text = read_source(p) if source is None else source
    trace, in_sets, out_sets, min_bytes = _trace(p, text)
    graph = build_graph(trace)
    ops = canonicalize(graph)
    types = sort_op_types(t for op in ops for t in op.op_types) or ["elementwise"]
    inputs, outputs = _merge(in_sets), _merge(out_sets)
    return TaskAnalysis(
        op_name=op_name_of(ops),
        op_type=primary_op_type(types),
        op_types=types,
        computation=computation_text(ops, types, inputs, outputs),
        inputs=inputs,
        outputs=outputs,
        input_sets=in_sets,
        dtype=_dominant_dtype(in_sets[0], out_sets[0]),
        flops=total_flops(trace.records),
        min_bytes=min_bytes,
        aten_ops=_dedup([f"aten.{r.name}" for r in trace.records]),
        task_hash=source_hash(text),
        canonical_ops=[op.name for op in ops],
        pointwise_expr=pointwise_expr(graph),
    )
