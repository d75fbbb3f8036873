"""Stage 3, shape matching: a numeric compatibility score in [0, 1] from the shapes themselves.

A kernel tuned for ``[4096, 4096]`` fp32 rows is a better model for a ``[4096, 8192]`` task than one
written for ``[16, 7]``: its tile sizes, grid and masking fit. The score compares the query's input
shapes with a record's, tensor by tensor in argument order.

Per dimension (dims are compared right-aligned, as broadcasting aligns them):

* both static: ``0.75 * size + 0.25 * align`` where ``size = (min / max) ** 0.25`` -- that is
  ``2 ** (-|log2(a / b)| / 4)``: 1 for equal sizes, 0.84 at a 2x ratio, 0.5 at 16x, 0.25 at 256x,
  strictly decreasing in the log size ratio -- and ``align`` is the fraction of the tile-friendly
  multiples 16, 64 and 128 on which the two sizes agree (both divisible or both not);
* both dynamic (-1): 1 -- both kernels take any size there;
* one dynamic, one static: 0.5 -- the dynamic kernel accepts the size but was not tuned for it, and
  a static kernel may not accept other sizes at all.

Per tensor: the mean over the compared dims times ``0.25 ** |rank difference|``, so a rank mismatch
scores low (at most 0.25). Two scalars score 1. Over the tensor lists: the sum of the paired tensor
scores divided by the longer list's length, so a missing or extra tensor counts as a zero.

Final order (see :func:`combine`): ``score = 0.95 * semantic + 0.05 * shape``. The weight comes
from the seed tasks' computation texts embedded with the project's model: tasks of the same primary
op type sit at cosine 0.80 on average, of different types at 0.68 -- a gap of 0.12 -- while a task's
nearest and second-nearest neighbours differ by a median 0.03. A whole unit of shape score moves a
hit by 0.05 / 0.95 = 0.053 in semantic terms: under half the type gap, so the semantic score
dominates, yet above the typical neighbour gap, so shape decides among similar computations.
Without query shapes the final score is the semantic score. A record without recorded shapes gets
the neutral 0.5.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

SHAPE_WEIGHT = 0.05  # weight of the shape score in the final score; the semantic score gets 1 - this
UNKNOWN_SHAPE_SCORE = 0.5  # a record whose shapes are not recorded: neither a match nor a mismatch
TILE_MULTIPLES = (16, 64, 128)  # tile and vector widths kernels are commonly tuned for
SIZE_EXPONENT = 0.25  # size similarity = (min/max) ** this: 0.5 at a 16x ratio
SIZE_WEIGHT = 0.75  # share of the size ratio in a static dim's score; alignment gets the rest
RANK_PENALTY = 0.25  # factor per rank of difference between two tensors
DYNAMIC_VS_STATIC = 0.5  # one dim dynamic, the other static

Shape = Sequence[int]


def dim_score(a: int, b: int) -> float:
    """Compatibility in [0, 1] of two dimension sizes (-1 = dynamic)."""
    if a < 0 and b < 0:
        return 1.0
    if a < 0 or b < 0:
        return DYNAMIC_VS_STATIC
    lo, hi = min(a, b), max(a, b)
    if hi == 0:
        return 1.0
    size = (lo / hi) ** SIZE_EXPONENT
    align = sum((a % m == 0) == (b % m == 0) for m in TILE_MULTIPLES) / len(TILE_MULTIPLES)
    return SIZE_WEIGHT * size + (1.0 - SIZE_WEIGHT) * align


def tensor_score(q: Shape, r: Shape) -> float:
    """Compatibility in [0, 1] of two tensor shapes: mean dim score times the rank penalty."""
    n = min(len(q), len(r))
    rank_factor = RANK_PENALTY ** abs(len(q) - len(r))
    if n == 0:
        return rank_factor  # two scalars: 1; a scalar against a tensor: penalised by rank only
    dims = [dim_score(q[-1 - i], r[-1 - i]) for i in range(n)]
    return rank_factor * sum(dims) / n


def shape_score(query: Sequence[Shape] | None, record: Sequence[Shape] | None) -> float | None:
    """Compatibility in [0, 1] of the query's input shapes with a record's.

    Returns None when the query has no shapes (the stage then leaves the order to the semantic
    score), and :data:`UNKNOWN_SHAPE_SCORE` when the record has none.
    """
    if query is None:
        return None
    if record is None:
        return UNKNOWN_SHAPE_SCORE
    longest = max(len(query), len(record))
    if longest == 0:
        return 1.0
    return sum(tensor_score(q, r) for q, r in zip(query, record)) / longest


def combine(semantic: float, shape: float | None) -> float:
    """The final score of a hit: ``0.95 * semantic + 0.05 * shape``, or ``semantic`` without shapes."""
    if shape is None:
        return semantic
    return (1.0 - SHAPE_WEIGHT) * semantic + SHAPE_WEIGHT * shape


def semantic_floor(final_threshold: float) -> float:
    """The lowest semantic score that can still reach ``final_threshold`` with a perfect shape score.

    Used to widen stage 3's candidate pool exactly: any record below this floor cannot enter the top k.
    """
    return (final_threshold - SHAPE_WEIGHT) / (1.0 - SHAPE_WEIGHT)


def parse_shapes(value: Any) -> list[list[int]] | None:
    """Read a record's ``shapes`` metadata (a JSON list of shapes) into lists of ints.

    Returns None for a missing, empty-string or malformed value: the record's shapes are unknown.
    """
    if value is None or value == "":
        return None
    try:
        data = json.loads(value) if isinstance(value, str) else value
        return [[int(d) for d in shape] for shape in data]
    except (ValueError, TypeError):
        return None
