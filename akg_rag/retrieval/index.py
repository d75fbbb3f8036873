"""The speed design: an exact in-process index over a Chroma collection, partitioned for filters.

Chroma answers an unfiltered top-k from its HNSW graph in a few milliseconds, but a ``where`` clause
on two or three metadata keys costs it tens of milliseconds at 100k records, and HNSW is approximate
besides. Stages 1 and 2 therefore run here instead:

* ids, embeddings and the filter keys of every record are read once (paged ``get``) and kept as a
  float32 matrix per ``(dsl, backend)`` partition, with one boolean mask per op type;
* a filtered query multiplies only the matching partition (20k rows x 384 floats take about a
  millisecond) and applies the op-type mask to the scores; the shortlist is rescored exactly
  (:mod:`akg_rag.retrieval.semantic`), so the result equals filtering the full semantic ranking --
  no approximate neighbour graph is involved;
* full metadata and code are fetched from Chroma for the final few ids only.

The index is keyed by the collection's record count and the store's revision counter; the retriever
reloads it when either changes (see :class:`akg_rag.retrieval.pipeline.Retriever`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable

import numpy as np

from akg_rag.optypes import OP_TYPES
from akg_rag.retrieval.filters import KernelFilter, record_op_types
from akg_rag.retrieval.semantic import exact_scores, fast_scores, normalize, shortlist, top_k

PAGE_SIZE = 2000  # records per paged get: bounds the memory of one page's metadata (code included)

Progress = Callable[[int, int], None]  # (records loaded so far, total)


def load_rows(
    collection: Any, keys: tuple[str, ...], page_size: int = PAGE_SIZE, progress: Progress | None = None
) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
    """Read every record's id, unit embedding and the metadata ``keys`` from a Chroma collection.

    Other metadata (code, sketch, ...) is dropped page by page, so memory stays proportional to the
    keys kept.
    """
    total = collection.count()
    ids: list[str] = []
    blocks: list[np.ndarray] = []
    metas: list[dict[str, Any]] = []
    offset = 0
    while offset < total:
        page = collection.get(include=["embeddings", "metadatas"], limit=page_size, offset=offset)
        if not page["ids"]:
            break  # records deleted while loading: keep what we have; the key check reloads later
        ids.extend(page["ids"])
        blocks.append(np.asarray(page["embeddings"], dtype=np.float32))
        metas.extend({k: (m or {}).get(k) for k in keys} for m in page["metadatas"])
        offset += len(page["ids"])
        if progress is not None:
            progress(offset, total)
    dim = blocks[0].shape[1] if blocks else 0
    matrix = normalize(np.concatenate(blocks)) if blocks else np.zeros((0, dim), dtype=np.float32)
    return ids, matrix, metas


@dataclass
class Partition:
    """The records of one (dsl, backend) pair: ids, unit embeddings, op-type masks, raw shapes."""

    dsl: str
    backend: str
    ids: np.ndarray  # str, one per row
    matrix: np.ndarray  # float32 (rows, dim), unit rows
    op_masks: dict[str, np.ndarray]  # op type -> bool (rows,)
    shapes: np.ndarray  # object (rows,): the raw ``shapes`` metadata, parsed only for candidates


@dataclass
class Scored:
    """Rows that passed the filter, with their fast (BLAS) scores; not yet sorted.

    Row ``i`` is row ``local[i]`` of partition ``parts[part[i]]``.
    """

    ids: np.ndarray  # str (rows,)
    fast: np.ndarray  # float32 (rows,): within SCORE_MARGIN of the exact cosine
    shapes: np.ndarray  # object (rows,): raw ``shapes`` metadata
    part: np.ndarray  # int (rows,): which partition
    local: np.ndarray  # int (rows,): row inside that partition
    parts: list[Partition]
    n_total: int  # records in the index, before the filter
    query: np.ndarray  # the unit query vector the scores are against

    def vectors(self, rows: np.ndarray) -> np.ndarray:
        """The unit embeddings of ``rows`` (indices into this object), gathered into one matrix."""
        if not self.parts:
            return np.zeros((0, self.query.shape[0]), dtype=np.float32)
        if len(self.parts) == 1:
            return self.parts[0].matrix[self.local[rows]]
        out = np.empty((len(rows), self.parts[0].matrix.shape[1]), dtype=np.float32)
        for j, r in enumerate(rows):
            out[j] = self.parts[self.part[r]].matrix[self.local[r]]
        return out

    def exact(self, rows: np.ndarray) -> np.ndarray:
        """Exact semantic scores of ``rows`` (see :func:`akg_rag.retrieval.semantic.exact_scores`)."""
        return exact_scores(self.vectors(rows), self.query)

    def top(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best rows by exact score (ties by id), best first, with their exact scores."""
        cand = shortlist(self.fast, k)
        exact = self.exact(cand)
        order = top_k(exact, self.ids[cand], k)
        return cand[order], exact[order]


@dataclass
class KernelIndex:
    """An exact, filter-partitioned vector index of the ``kernels`` collection."""

    partitions: dict[tuple[str, str], Partition]
    n: int
    dim: int
    key: Hashable = None  # (count, revision) at load time
    load_ms: float = 0.0

    @classmethod
    def load(
        cls, collection: Any, key: Hashable = None, page_size: int = PAGE_SIZE,
        progress: Progress | None = None,
    ) -> "KernelIndex":
        """Build the index from a Chroma collection of kernel records."""
        import time

        t0 = time.perf_counter()
        keys = ("dsl", "backend", "op_type", "op_types", "shapes") + tuple(f"type_{t}" for t in OP_TYPES)
        ids, matrix, metas = load_rows(collection, keys, page_size, progress)
        groups: dict[tuple[str, str], list[int]] = {}
        for row, meta in enumerate(metas):
            groups.setdefault((str(meta.get("dsl") or ""), str(meta.get("backend") or "")), []).append(row)
        id_arr = np.asarray(ids, dtype=str)
        parts: dict[tuple[str, str], Partition] = {}
        for (dsl, backend), rows in groups.items():
            r = np.asarray(rows, dtype=np.int64)
            types = [record_op_types(metas[i]) for i in rows]
            parts[(dsl, backend)] = Partition(
                dsl=dsl,
                backend=backend,
                ids=id_arr[r],
                matrix=np.ascontiguousarray(matrix[r]),
                op_masks={t: np.fromiter((t in ts for ts in types), bool, len(rows)) for t in OP_TYPES},
                shapes=_objects([metas[i].get("shapes") for i in rows]),
            )
        ms = (time.perf_counter() - t0) * 1000.0
        return cls(partitions=parts, n=len(ids), dim=matrix.shape[1], key=key, load_ms=ms)

    def select(self, flt: KernelFilter) -> list[Partition]:
        """The partitions whose (dsl, backend) pass the filter."""
        return [
            p
            for (dsl, backend), p in self.partitions.items()
            if (flt.dsl is None or dsl == flt.dsl) and (flt.backend is None or backend == flt.backend)
        ]

    def score(self, query: np.ndarray, flt: KernelFilter) -> Scored:
        """Fast semantic scores of exactly the records that pass ``flt`` (stages 1 and 2, fused)."""
        q = normalize(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
        selected = self.select(flt)
        ids, fast, shapes, part, local = [], [], [], [], []
        for j, p in enumerate(selected):
            s = fast_scores(p.matrix, q)
            if flt.op_type is None:
                rows = np.arange(p.ids.size)
                ids.append(p.ids), fast.append(s), shapes.append(p.shapes)
            else:
                rows = np.flatnonzero(p.op_masks[flt.op_type])
                ids.append(p.ids[rows]), fast.append(s[rows]), shapes.append(p.shapes[rows])
            part.append(np.full(rows.size, j, dtype=np.int32)), local.append(rows)
        if not selected:
            none = np.zeros(0, dtype=np.int64)
            return Scored(np.zeros(0, dtype=str), np.zeros(0, np.float32), _objects([]), none, none, [], self.n, q)
        if len(selected) == 1:
            return Scored(ids[0], fast[0], shapes[0], part[0], local[0], selected, self.n, q)
        cat = np.concatenate
        return Scored(cat(ids), cat(fast), cat(shapes), cat(part), cat(local), selected, self.n, q)

    def search(self, query: np.ndarray, flt: KernelFilter, k: int) -> list[tuple[str, float]]:
        """Stages 1 and 2 alone: the ``k`` best ``(id, semantic score)`` that pass ``flt``."""
        scored = self.score(query, flt)
        rows, exact = scored.top(k)
        return [(str(scored.ids[r]), float(s)) for r, s in zip(rows, exact)]


def _objects(values: list[Any]) -> np.ndarray:
    """A 1-d object array of ``values`` (never a 2-d array, whatever the values are)."""
    arr = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        arr[i] = v
    return arr


def fetch(collection: Any, ids: list[str], documents: bool = False) -> dict[str, dict[str, Any]]:
    """Full metadata (and optionally the document) of ``ids`` from Chroma, keyed by id."""
    if not ids:
        return {}
    include = ["metadatas", "documents"] if documents else ["metadatas"]
    got = collection.get(ids=list(ids), include=include)
    out: dict[str, dict[str, Any]] = {}
    for i, rid in enumerate(got["ids"]):
        meta = dict(got["metadatas"][i] or {})
        if documents:
            meta["__document__"] = got["documents"][i] or ""
        out[rid] = meta
    return out
