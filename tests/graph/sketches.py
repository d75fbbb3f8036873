"""Designer answers for the fixture softmax task (``fixtures/softmax_task.py``): sketches for the
lowering's kernel ``k0`` that differ from the emitted one.

The emitted sketch handles ``KBLOCK`` rows per program with 2-D tiles; these handle one row per
program with 1-D tiles (a restructured reduction), bound to the region's tensors by name, which
are read from the plan so that a renamed value in the partitioner does not break them.
"""

from __future__ import annotations

from functools import cache

from .conftest import TASK

ROW_SOFTMAX = """\
sketch softmax_by_row {{
  symbols: M, N
  tensors: {x}[M, N]: f32 in; {y}[M, N]: f32 out

  @llm_hint("parallel", "core")
  for m in range(M):
    row = alloc([N], f32, hint="input_cache")
    load({x}[m, 0:N] -> row)
    mx = reduce_max(row, axis=0)
    e = exp(sub(row, mx))
    s = reduce_sum(e, axis=0)
    out = alloc([N], f32, hint="output_buffer")
    out = {result}
    store(out -> {y}[m, 0:N])
}}
"""


@cache
def plan_tensors() -> tuple[str, str]:
    """The input and output tensor names of the plan's one kernel, k0, for the fixture task."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.sketch import check_sketch

    _, report = lower_task(TASK, "cpp", "cpu", sketch_only=True)
    [kernel] = report.kernels
    x, y = [t.name for t in check_sketch(kernel.sketch).tensors]
    return x, y


def row_softmax(result: str = "div(e, s)", *, out_name: str | None = None) -> str:
    """The one-row-per-program softmax for k0; ``result`` is the row written (``div(e, s)``: softmax),
    ``out_name`` renames the output tensor (a sketch the lowering cannot bind to the region)."""
    x, y = plan_tensors()
    return ROW_SOFTMAX.format(x=x, y=out_name or y, result=result)


def as_kernel_sketch(name: str, text: str) -> str:
    """A chat answer revising kernel ``name``: the sketch in a fence tagged with the kernel's name."""
    return f"One row per program keeps the row in cache.\n```sketch {name}\n{text.strip()}\n```\n"
