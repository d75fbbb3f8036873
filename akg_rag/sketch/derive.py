"""The deterministic designer: a valid Unified Sketch from a task analysis, with no LLM.

The canonical op sequence is cut into *stages*: each non-elementwise op starts a stage, and the
elementwise ops after it become its epilogue (those before the first one, its prologue). Each stage
is written from the template of its family and reads the previous stage's result from a ``temp``
tensor:

* elementwise: a parallel loop over blocks of the flattened tensor, a vectorised inner loop;
* softmax, normalization, reduction, scan, loss: rows in parallel, the row (or its blocks) cached,
  an accumulator for the reduced values;
* matmul and conv (implicit GEMM on the im2col view): M/N tiles in parallel, a pipelined K loop into
  an accumulator, the epilogue on the tile before the store; bmm adds a batch loop;
* pooling: output positions in parallel, a reduction over the window;
* attention: query blocks in parallel, an online-softmax pipeline over key/value blocks;
* indexing: one parallel gather per index; recurrent layers: a sequential loop over time steps.

Sizes are symbols, not numbers: the coder binds them to the task's shapes.
"""

from __future__ import annotations

from akg_rag.sketch.design import BINARY_EXPR, RECURRENT, REDUCE_OP, SCAN_OP, UNARY_EXPR, Design, Stage
from akg_rag.sketch.nodes import Sketch
from akg_rag.sketch.templates import READS_RANK, TEMPLATES
from akg_rag.sketch.vocab import TORCH_DTYPES

def _family(name: str) -> str:
    """Template family of one canonical op."""
    from akg_rag.analysis.canon import COMPOSITE_CALLS
    from akg_rag.analysis.optable import op_type_of

    if name in RECURRENT:
        return "recurrent"
    if name == "bmm":
        return "bmm"
    if name in ("linear", "matmul", "bilinear"):
        return "matmul"
    if name.startswith(("conv", "depthwise_conv")):
        return "conv"
    if "pool" in name:
        return "pooling"
    if name in ("softmax", "log_softmax", "softmin"):
        return "softmax"
    if name in ("scaled_dot_product_attention", "multi_head_attention"):
        return "attention"
    if name in COMPOSITE_CALLS or any(name == v[0] for v in COMPOSITE_CALLS.values()):
        return next(v[1][0] for k, v in COMPOSITE_CALLS.items() if name in (k, v[0]))
    if name.endswith("_norm") or name == "l2_normalize":
        return "normalization"
    if name in REDUCE_OP or name in ("norm", "var", "std", "logsumexp"):
        return "reduction"
    if name in SCAN_OP:
        return "scan"
    kind = op_type_of(name)
    return kind if kind != "elementwise" or name in UNARY_EXPR or name in BINARY_EXPR else "elementwise"


def _stages(ops: list[str]) -> list[Stage]:
    stages: list[Stage] = []
    pending: list[str] = []
    for name in ops:
        fam = _family(name)
        if fam == "elementwise":
            (stages[-1].epilogue if stages else pending).append(name)
        else:
            stages.append(Stage(name, fam, prologue=pending))
            pending = []
    if not stages:
        stages.append(Stage(None, "elementwise", prologue=pending))
    return stages


def _pointwise_text(analysis: "TaskAnalysis") -> str | None:  # noqa: F821
    """A purely pointwise task's sketch from its expression tree (constants and dataflow exact),
    written by the lowering's pointwise emitter; None when the analysis has no such tree."""
    if not analysis.pointwise_expr or not analysis.outputs:
        return None
    from akg_rag.lower.emit.pointwise import emit_pointwise
    from akg_rag.lower.region import Expr, Output, PointwiseRegion, Value

    def expr(d: dict) -> Expr:
        return Expr(d["op"], tuple(expr(a) for a in d.get("args", [])), d.get("ref"), d.get("value"), d.get("dtype"))

    tree = expr(analysis.pointwise_expr)
    names = ["x"] + [f"x{i}" for i in range(1, len(analysis.inputs))]
    used: set[str] = set()

    def refs(e: Expr) -> None:
        if e.op == "input":
            used.add(e.ref or "")
        for a in e.args:
            refs(a)

    refs(tree)
    inputs = [Value(n, tuple(s.shape), s.dtype) for n, s in zip(names, analysis.inputs) if n in used]
    out = analysis.outputs[0]
    if not inputs:
        return None
    region = PointwiseRegion(inputs, [Output(Value("y", tuple(out.shape), out.dtype), tree)], tuple(out.shape))
    try:
        return emit_pointwise(region, analysis.op_name)
    except ValueError:
        return None  # shapes the pointwise emitter does not take: the templates below do


def derive_text(analysis: "TaskAnalysis") -> str:  # noqa: F821 - layer-1 type, imported lazily
    """Sketch text for ``analysis`` (see the module docstring): a purely pointwise task comes
    exactly from its expression tree; other tasks from the family templates."""
    text = _pointwise_text(analysis)
    if text is not None:
        return text
    dtype = TORCH_DTYPES.get(analysis.dtype, "f32")
    names = ["x"] + [f"x{i}" for i in range(1, len(analysis.inputs))]
    inputs = [(n, TORCH_DTYPES.get(s.dtype, dtype)) for n, s in zip(names, analysis.inputs)]
    d = Design(name=analysis.op_name, dtype=dtype, inputs=inputs)
    ops = list(analysis.canonical_ops) or [analysis.op_name]
    stages = _stages(ops)
    src: str | None = None
    dims: list[str] = []
    for k, st in enumerate(stages):
        last = k == len(stages) - 1
        dst = "y" if last else f"t{k + 1}"
        if k:
            d.emit(0, "")
        start = len(d.lines)
        want = READS_RANK[st.family]
        lead = dims[: len(dims) - want] if src is not None and want and len(dims) > want else []
        dims = TEMPLATES[st.family](d, st, src, dims[len(lead):], dst)
        if lead:
            _lead_loops(d, start, lead, [src or "", dst])
        dims = lead + dims
        nxt = READS_RANK[stages[k + 1].family] if not last else None
        if nxt and len(dims) < nxt:
            _pad_stores(d, start, dst, nxt - len(dims))
            dims = dims + ["1"] * (nxt - len(dims))
        d.tensor(dst, dims, "out" if last else "temp")
        src = dst
    return d.text()


def _lead_loops(d: Design, start: int, lead: list[str], tensors: list[str]) -> None:
    """Wrap the lines emitted since ``start`` in parallel loops over the ``lead`` dims of a
    higher-rank input, indexing ``tensors`` with those loop variables first."""
    names = [f"l{i + 1}" for i in range(len(lead))]
    body = d.lines[start:]
    prefix = "".join(f"{n}, " for n in names)
    for t in tensors:
        body = [ln.replace(f"{t}[", f"{t}[{prefix}") for ln in body]
    head: list[str] = []
    for depth, (n, dim) in enumerate(zip(names, lead), start=1):
        head.append("  " * depth + '@llm_hint("parallel", "grid")')
        head.append("  " * depth + f"for {n} in range({dim}):")
    d.lines[start:] = head + ["  " * len(lead) + ln if ln.strip() else ln for ln in body]


def _pad_stores(d: Design, start: int, dst: str, pad: int) -> None:
    """Give the stores into ``dst`` ``pad`` trailing unit indices (the next stage reads more dims)."""
    for i in range(start, len(d.lines)):
        line = d.lines[i]
        if f"-> {dst}[" in line and line.rstrip().endswith("])"):
            d.lines[i] = line.rstrip()[:-2] + ", 0" * pad + "])"


def derive_sketch(analysis: "TaskAnalysis") -> Sketch:  # noqa: F821
    """A validated sketch designed from ``analysis``; raises ``SketchError`` only on a template bug."""
    from akg_rag.sketch import check_sketch

    return check_sketch(derive_text(analysis))
