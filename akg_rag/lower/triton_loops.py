"""How the Triton backend writes a sketch loop (used by :mod:`akg_rag.lower.triton_kernel`):
``tl.static_range`` for an unrolled one (``unrolled``), ``tl.range(..., num_stages=LOOP_STAGES)``
for a streaming one (``staged``), and the constant iteration count both read (``iterations``)."""

from __future__ import annotations

from akg_rag.lower.reuse import statements
from akg_rag.lower.sizes import size_of
from akg_rag.lower.typed import TypedSketch
from akg_rag.sketch.nodes import Assign, Call, For, Load, Num, sub_exprs

STATIC_UNROLL_MAX = 64   # iterations; longer `unroll` loops stay tl.range loops


def staged(s: For) -> bool:
    """A streaming loop, written ``tl.range(..., num_stages=LOOP_STAGES)``: hinted ``pipeline``,
    innermost, loading from a tensor and multiplying none with ``matmul`` (the kernel's own
    ``num_stages`` pipelines a dot's operand loads; it leaves other loads alone). Triton
    software-pipelines such a loop's loads ``LOOP_STAGES`` deep (asynchronous copies into shared
    memory); 1 compiles exactly as a plain ``range``. The loop of a split or loop-form reduction
    otherwise keeps one load a thread in flight, waited for before the next is issued."""
    if not any(h.kind == "pipeline" for h in s.hints):
        return False
    body = list(statements(s.body))
    if any(isinstance(x, For) for x in body):
        return False
    if any(isinstance(x, Assign) and any(isinstance(e, Call) and e.func == "matmul" for e in sub_exprs(x.value))
           for x in body):
        return False
    return any(isinstance(x, Load) for x in body)


def unrolled(s: For, t: TypedSketch) -> range | None:
    """The iterations of a loop written as ``tl.static_range``: hinted ``unroll``, with a constant
    start, stop and positive step and at most STATIC_UNROLL_MAX iterations (None otherwise)."""
    if not any(h.kind == "unroll" for h in s.hints):
        return None
    its = iterations(s, t)
    return its if its is not None and len(its) <= STATIC_UNROLL_MAX else None


def iterations(s: For, t: TypedSketch) -> range | None:
    """The iterations of a loop whose start, stop and positive step are constants (tunables not
    counted as constants); None otherwise."""
    values = {k: v for k, v in t.params.items() if k not in t.tunables}
    nums = []
    for e in (s.start or Num(0), s.stop, s.step or Num(1)):
        size = size_of(e, values)
        if size.value is None:
            return None
        nums.append(size.value)
    if nums[2] <= 0:
        return None
    return range(*nums)
