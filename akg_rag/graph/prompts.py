"""Prompt texts of the designer, coder and analyst, and the packing of retrieved context.

Retrieved kernels and document chunks go into a prompt best first until the token budget is spent.
Tokens are counted approximately as characters / 4 (close for English and code with BPE tokenizers,
and it needs no tokenizer for whatever chat model is configured); the ids of what went in are
returned so the run records exactly which knowledge each prompt used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHARS_PER_TOKEN = 4


def count_tokens(text: str) -> int:
    """Approximate token count of ``text`` (characters / 4, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass
class PackedContext:
    """Retrieved material that fits the budget, and the ids it came from."""

    text: str = ""
    kernel_ids: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    tokens: int = 0


def _kernel_block(hit: dict[str, Any], with_code: bool) -> str:
    head = f"### Kernel {hit.get('id')} (op {hit.get('op_name')}, score {hit.get('score', 0):.3f})"
    lines = [head, f"Computation: {hit.get('computation', '')}".rstrip()]
    if hit.get("speedup_eager"):
        lines.append(f"Measured speedup vs eager: {hit['speedup_eager']:.2f}x")
    if hit.get("sketch"):
        lines.append(f"Sketch:\n```sketch\n{hit['sketch'].strip()}\n```")
    if with_code and hit.get("code"):
        lines.append(f"Code:\n```python\n{hit['code'].strip()}\n```")
    return "\n".join(lines)


def pack_context(kernel_hits: list[dict[str, Any]], doc_hits: list[dict[str, Any]], budget_tokens: int,
                 *, with_code: bool = True) -> PackedContext:
    """Pack kernels then documents, best first, skipping any that would pass ``budget_tokens``."""
    packed = PackedContext()
    parts: list[str] = []
    for hit in kernel_hits:
        block = _kernel_block(hit, with_code)
        cost = count_tokens(block)
        if packed.tokens + cost <= budget_tokens:
            parts.append(block)
            packed.kernel_ids.append(str(hit.get("id")))
            packed.tokens += cost
    for doc in doc_hits:
        block = f"### Doc {doc.get('id')} ({doc.get('heading', '')})\n{str(doc.get('text', '')).strip()}"
        cost = count_tokens(block)
        if packed.tokens + cost <= budget_tokens:
            parts.append(block)
            packed.doc_ids.append(str(doc.get("id")))
            packed.tokens += cost
    packed.text = "\n\n".join(parts)
    return packed


SYSTEM = (
    "You are a kernel engineer. You turn PyTorch reference programs into fast custom kernels that "
    "compute exactly the same result, and you answer with complete code, not fragments.")

SKETCH_LANGUAGE = """\
A Unified Sketch is hardware-agnostic: a header (`symbols:`, `tensors:` with shape, dtype and in/out,
`params:`), then nested `for` loops, each optionally preceded by `@llm_hint(kind, context)` with kind in
parallel, pipeline, vectorize, unroll and context in grid, core, thread, warp, simd; `alloc(shape, dtype,
hint=...)` with a role hint (accumulator, input_cache, output_buffer); `load(tensor[...] -> tile)` and
`store(tile -> tensor[...])`; compute ops (add, sub, mul, div, max, exp, log, sqrt, rsqrt, tanh,
reduce_sum/reduce_max with an axis, matmul). Every output tensor must be stored."""

DESIGNER = """\
Design the kernel for this task as a Unified Sketch.

{language}

## Task ({op_name}; op types {op_types})
```python
{task_source}
```
Computation logic: {computation}
Input shapes: {shapes}; dtype {dtype}; {flops} FLOPs, {min_bytes} bytes minimum traffic.

## A mechanically derived sketch (valid syntax; improve its schedule and hints)
```sketch
{derived}
```

## Retrieved knowledge
{context}
{feedback}
Answer with exactly one ```sketch block."""

# The kernel semantics of docs/lowering.md, short: what a sketch must say for the lowering to take it.
SKETCH_RULES = """\
- Each top-level statement is a `for` loop marked `@llm_hint("parallel", ...)`: one kernel launch;
  launches run in order. Directly nested parallel loops join its grid. The body runs once per grid
  point (a Triton program, or one iteration of an OpenMP parallel for); inner loops are sequential.
- Values are scalars or tiles. Tiles come from `load` with slices (`x[m, 0:N]`) or int index tiles
  (gathers), `iota(n)`, `alloc` and compute ops, which broadcast like NumPy.
- `load(x[i, a:b] -> t, other=-inf)`: an out-of-range element reads `other` (default 0); a store skips
  out-of-range elements. Mask padded lanes of a reduction with `where(lt(r, N), v, -inf)`.
- Compute runs in f32 (f64 for f64 data); `reduce_*(t, axis=k[, keepdim=1])`, `scan_*(t, axis=k)`,
  `matmul(a, b)` on 2-D tiles, `unsqueeze(t, axis=k)`, `where`, `cast(v, i64)`.
- A local assigned inside a loop and defined before it carries across iterations (an accumulator).
- Every symbol is a whole dimension of some tensor; an UPPER_CASE integer param is a tunable.
- A `temp` tensor lives for one call and passes data between launches.
- A revised sketch declares exactly the kernel's tensors (names, order, in/out) of the plan's sketch."""

DESIGNER_PLAN = """\
Design the kernels for this task as Unified Sketches.

The lowering cut the task into {count} kernel(s) and wrote the sketch of each one below. The same
lowering turns any sketch you write for a kernel into {dsl} code for {backend} (no code is written
by hand), and the verifier checks the result against the task. Revise a sketch where you see a
better schedule: tile sizes and tunables, the parallel grid, how a reduction is split.

{language}

## What the lowering accepts
{rules}

## Task ({op_name}; op types {op_types})
```python
{task_source}
```
Computation logic: {computation}
Input shapes: {shapes}; dtype {dtype}; {flops} FLOPs, {min_bytes} bytes minimum traffic.{fallbacks}

## The plan, in launch order
{plan}

## Retrieved knowledge
{context}
{feedback}
Answer with one fenced block per kernel you revise, tagged with the kernel's name (```sketch k0);
a kernel you leave out keeps its sketch above. To have the coder write the whole task as {dsl}
code instead, answer with one ```sketch block that names no kernel."""


def plan_section(plan: list[dict[str, Any]]) -> str:
    """The plan's kernels for the designer's prompt: name, kind, outputs and the current sketch."""
    parts = []
    for p in plan:
        mark = "; your revision" if p.get("revised") else ""
        parts.append(f"### Kernel {p['name']} ({p['kind']}; writes {', '.join(p.get('outputs', []))}{mark})\n"
                     f"```sketch {p['name']}\n{p['sketch'].strip()}\n```")
    return "\n\n".join(parts)


CODER = """\
Write a {dsl} kernel for the {backend} backend that replaces this PyTorch program.

Rules: define `class ModelNew(nn.Module)` with exactly the constructor signature of `Model`; its
forward must launch your own {dsl} kernel (no fallback to the reference op, no try/except around
the kernel, no threads, no caching of outputs); keep the output shape and dtype of `Model.forward`.
{dsl_rules}

## Task
```python
{task_source}
```

## Sketch to implement
```sketch
{sketch}
```

## Retrieved knowledge
{context}
{current}{feedback}
Answer with one ```python block holding the complete candidate file."""

DSL_RULES = {
    "cpp": ("Build the C++ source with torch.utils.cpp_extension.load_inline (functions=[...], "
            "extra_cflags=['-O3', '-fopenmp'], extra_ldflags=['-fopenmp']) at import time, and "
            "parallelise the outer loop with OpenMP."),
    "triton": ("Write @triton.jit kernels with tl.constexpr block sizes and a host wrapper that "
               "computes the grid and checks its limits."),
    "cuda_c": "Build the CUDA source with torch.utils.cpp_extension.load_inline (cuda_sources=...).",
    "tilelang": "Write the kernel with tilelang (T.prim_func) and compile it for the target at import time.",
}

ANALYST = """\
Here is a verified {dsl}/{backend} kernel with its measurements and a rule-based analysis.
Write concrete recommendations for the next optimisation pass (block sizes, number of warps or
threads, vectorisation, fusion, memory access order), one per line starting with "- ".

## Kernel
```python
{code}
```

## Measurements
{measurements}

## Rule-based findings
{findings}
"""


def feedback_section(feedback: dict[str, Any] | None, for_agent: str) -> str:
    """The prompt section carrying targeted feedback addressed to ``for_agent`` ("" when none)."""
    if not feedback or feedback.get("to") != for_agent:
        return ""
    return f"\n## Feedback on your previous attempt ({feedback.get('kind')})\n{feedback.get('text', '').strip()}\n"
