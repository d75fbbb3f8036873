"""Which tensors a program reads again in a later pass, and the L2 hints that follow from it.

A program's passes are the sequential loops at the top of its body, in order (a reduction's loop
form: a pass for the row's statistics, then a pass that reads the row again and writes the
output). A tensor loaded in two or more passes is *read again*. The Triton backend turns this into
cache hints (its loads in every pass but its last ``evict_last``, in its last ``evict_first``, the
stores inside passes streaming) and a grid-stride launch whose host can size the grid to the L2
(docs/lowering-triton.md, ``CACHE_MODE`` and ``GRID_MODE``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from akg_rag.sketch.nodes import For, Load, Stmt, Store


@dataclass
class Reuse:
    """The passes' reuse in one program body; all empty when nothing is read twice."""

    reread: list[str] = field(default_factory=list)       # tensors read again, sorted
    evict: dict[int, str] = field(default_factory=dict)   # id(Load) -> "evict_last" / "evict_first"
    streamed: set[int] = field(default_factory=set)       # id(Store) of the stores inside passes


def reuse(body: list[Stmt]) -> Reuse:
    """The tensors ``body`` reads in more than one of its passes, with each load's eviction policy
    and the stores to stream.

    Timed on an H100, hints off against on (docs/results/h100/cache-mode-run18.jsonl): the
    batch norms after a GEMM (level2/33, 84) 1.82 -> 1.70 and 1.82 -> 1.72 ms, a group norm
    (level2/85) 4.17 -> 4.02, an instance norm (level2/17) 7.13 -> 7.03; L1 normalisation of
    [32768, 65535] rows 9.38 -> 9.31, level1/34 8.07 -> 8.15 (within the spread)."""
    passes = [s for s in body if isinstance(s, For)]
    loads = [[x for x in statements(p.body) if isinstance(x, Load)] for p in passes]
    seen: dict[str, list[int]] = {}
    for k, group in enumerate(loads):
        for tensor in dict.fromkeys(x.src.tensor for x in group):
            seen.setdefault(tensor, []).append(k)
    again = {t: ks for t, ks in seen.items() if len(ks) > 1}
    if not again:
        return Reuse()
    evict = {id(x): "evict_first" if k == again[x.src.tensor][-1] else "evict_last"
             for k, group in enumerate(loads) for x in group if k in again.get(x.src.tensor, ())}
    streamed = {id(x) for p in passes for x in statements(p.body) if isinstance(x, Store)}
    return Reuse(sorted(again), evict, streamed)


def statements(body: list[Stmt]) -> Iterator[Stmt]:
    """Every statement of ``body``, loops' bodies included (pre-order)."""
    for s in body:
        yield s
        if isinstance(s, For):
            yield from statements(s.body)
