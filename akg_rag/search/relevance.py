"""Which tunable moves can change what a kernel executes for a task's shapes, and which cannot.

A search that spends a verification on a move that cannot change the executed code measures noise
and, on a loaded machine, may "find" a speedup in it. Rules (each one conservative: when unsure, the
move is kept):

* **threshold** -- a tunable named like a size threshold (``MIN_PARALLEL_ELEMENTS``, ``*_THRESHOLD``,
  ``*_CUTOFF``, ``MIN_*``) is compared against a problem size. Moving it from ``a`` to ``b`` changes
  nothing when no size of the task lies in ``[min(a, b), max(a, b)]``: every comparison ``size >= t``
  (or ``>``) comes out the same. Problem sizes are the products of every subset of dims of every
  input and output tensor (numel, rows, rows x cols, ...), so a threshold on ``outer * inner`` of a
  reduction is covered too. With 524,288 elements, 32768 -> 65536 is skipped; 1 << 20 is not.

Tasks with several input sets (dynamic shapes) or unknown dims are not filtered.

Not covered, by design of what can be known without running the code: a tile read only in a branch
that the task's shapes never take (say, the ``inner > 1`` path of a reduction over the last dim).
That needs the executed path, which only the verifier sees.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from dataclasses import dataclass
from typing import Iterable

_THRESHOLD = re.compile(r"MIN_PARALLEL|THRESHOLD|CUTOFF|^MIN_")

# Dims per tensor beyond which subsets are not enumerated (2**8 products per tensor at most).
_MAX_RANK = 8


@dataclass(frozen=True)
class Skipped:
    """A move left out: which change, and why it cannot matter."""

    change: str    # "NAME=value"
    reason: str


def is_threshold(name: str) -> bool:
    """Whether a tunable's name says it is a size threshold (see the module docstring)."""
    return bool(_THRESHOLD.search(name.split("@", 1)[0].upper()))


def problem_sizes(shapes: Iterable[Iterable[int]]) -> frozenset[int] | None:
    """Products of every non-empty subset of each shape's dims; None if a dim is unknown (< 0)."""
    out: set[int] = set()
    for shape in shapes:
        dims = [int(d) for d in shape]
        if any(d < 0 for d in dims) or len(dims) > _MAX_RANK:
            return None
        for r in range(1, len(dims) + 1):
            for combo in itertools.combinations(dims, r):
                p = 1
                for d in combo:
                    p *= d
                out.add(p)
    return frozenset(out)


def why_irrelevant(name: str, old: int, new: int, sizes: frozenset[int] | None) -> str | None:
    """The reason moving tunable ``name`` from ``old`` to ``new`` cannot matter; None if it may."""
    if sizes is None or old == new:
        return None
    if is_threshold(name):
        lo, hi = min(old, new), max(old, new)
        if not any(lo <= s <= hi for s in sizes):
            where = ("every size is below both" if lo > max(sizes) else "every size is above both"
                     if hi < min(sizes) else "sizes lie on either side, none between")
            return (f"threshold {name} {old} -> {new}: no problem size of the task lies between them "
                    f"(largest {max(sizes)}; {where})")
    return None


def sizes_of_analysis(analysis: dict) -> frozenset[int] | None:
    """Problem sizes of a ``TaskAnalysis.to_dict()``; None for a dynamic-shape task."""
    sets = analysis.get("input_sets") or []
    if len(sets) != 1:
        return None
    shapes = [s["shape"] for s in sets[0]] + [s["shape"] for s in analysis.get("outputs") or []]
    return problem_sizes(shapes)


@functools.lru_cache(maxsize=32)
def _task_sizes(path: str, mtime_ns: int, scale: str | None) -> frozenset[int] | None:
    from akg_rag.analysis import analyze_task

    saved = os.environ.get("AKG_TASK_SCALE")
    try:
        if scale:
            os.environ["AKG_TASK_SCALE"] = scale  # the shapes the verifier will run
        return sizes_of_analysis(analyze_task(path).to_dict())
    finally:
        if saved is None:
            os.environ.pop("AKG_TASK_SCALE", None)
        else:
            os.environ["AKG_TASK_SCALE"] = saved


def task_sizes(path: str, scale: str | None = None) -> frozenset[int] | None:
    """Problem sizes of the task file at ``AKG_TASK_SCALE=scale``; None when they cannot be known."""
    try:
        return _task_sizes(str(path), os.stat(path).st_mtime_ns, scale)
    except Exception:  # noqa: BLE001 - no analysis, no filtering: every move is kept
        return None
