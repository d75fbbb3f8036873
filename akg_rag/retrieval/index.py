"""The speed design: an exact in-process index over a Chroma collection, partitioned by the filters.

Chroma answers an unfiltered top-k from its HNSW graph in a few milliseconds, but a ``where`` clause
on three metadata keys costs it one to two orders of magnitude more at 100k records, and HNSW is
approximate besides (see docs/retrieval.md for the figures). Stages 1 and 2 therefore run here:

* ids, embeddings and the filter keys of every record are read once (paged ``get``) and laid out
  as one float32 block per (dsl, backend, op type). A block first holds the records whose *primary*
  type it is ("home" rows), then the fused records that also carry the type, so a record of k op
  types is stored k times (about 1.4x the rows for a realistic mix);
* a query with an op type scores exactly one block per matching (dsl, backend) pair; a query
  without one scores the home rows of every block of the pair, so each record is scored once.
  The scores are exact cosines (:mod:`akg_rag.retrieval.semantic`), so the filtered ranking equals
  filtering the full semantic ranking -- no approximate neighbour graph is involved;
* full metadata and code are fetched from Chroma for the final few ids only.

The index is keyed by the store's revision counter of the collection; the retriever reloads it when
the revision moves (see :class:`akg_rag.retrieval.pipeline.Retriever`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable

import numpy as np

from akg_rag.optypes import OP_TYPES, sort_op_types
from akg_rag.retrieval.filters import KernelFilter, record_op_types
from akg_rag.retrieval.semantic import cosine_scores, normalize, top_k

PAGE_SIZE = 2000  # records per paged get: bounds the memory of one page's metadata (code included)
FILTER_KEYS = ("dsl", "backend", "op_type", "op_types", "shapes") + tuple(f"type_{t}" for t in OP_TYPES)

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
    while len(ids) < total:
        page = collection.get(include=["embeddings", "metadatas"], limit=page_size, offset=len(ids))
        if not page["ids"]:
            break  # records deleted while loading: the revision moved, so the next query reloads
        ids.extend(page["ids"])
        blocks.append(np.asarray(page["embeddings"], dtype=np.float32))
        metas.extend({k: (m or {}).get(k) for k in keys} for m in page["metadatas"])
        if progress is not None:
            progress(len(ids), total)
    dim = blocks[0].shape[1] if blocks else 0
    matrix = normalize(np.concatenate(blocks)) if blocks else np.zeros((0, dim), dtype=np.float32)
    return ids, matrix, metas


@dataclass
class Block:
    """The records of one (dsl, backend, op type): home rows (primary type) first, then fused ones."""

    ids: np.ndarray  # str (rows,)
    matrix: np.ndarray  # float32 (rows, dim), unit rows, C-contiguous
    shapes: np.ndarray  # object (rows,): the raw ``shapes`` metadata, parsed only for candidates
    n_home: int  # rows [0, n_home) have this block's type as their primary type


@dataclass
class Scored:
    """Records that passed the filter with their exact semantic scores (not yet sorted)."""

    ids: np.ndarray
    scores: np.ndarray
    shapes: np.ndarray
    n_total: int  # records in the index, before the filter

    def top(self, k: int) -> np.ndarray:
        """Indices of the ``k`` best rows by (score desc, id asc)."""
        return top_k(self.scores, self.ids, k)


@dataclass
class KernelIndex:
    """An exact, filter-partitioned vector index of the ``kernels`` collection."""

    blocks: dict[tuple[str, str], dict[str, Block]]  # (dsl, backend) -> op type -> block
    n: int
    dim: int
    key: Hashable = None  # the store's revision of the collection at load time
    load_ms: float = 0.0

    @classmethod
    def load(
        cls, collection: Any, key: Hashable = None, page_size: int = PAGE_SIZE,
        progress: Progress | None = None,
    ) -> "KernelIndex":
        """Build the index from a Chroma collection of kernel records."""
        t0 = time.perf_counter()
        ids, matrix, metas = load_rows(collection, FILTER_KEYS, page_size, progress)
        # (dsl, backend) -> op type -> (home rows, fused rows)
        rows: dict[tuple[str, str], dict[str, tuple[list[int], list[int]]]] = {}
        for r, meta in enumerate(metas):
            pair = rows.setdefault((str(meta.get("dsl") or ""), str(meta.get("backend") or "")), {})
            types = sort_op_types(record_op_types(meta) & set(OP_TYPES))
            home = str(meta.get("op_type") or "") if meta.get("op_type") in types else (types or [""])[0]
            pair.setdefault(home, ([], []))[0].append(r)
            for t in types:
                if t != home:
                    pair.setdefault(t, ([], []))[1].append(r)
        id_arr = np.asarray(ids, dtype=str)
        shapes = _objects([m.get("shapes") for m in metas])
        blocks = {
            pair: {t: _block(id_arr, matrix, shapes, home, fused) for t, (home, fused) in by_type.items()}
            for pair, by_type in rows.items()
        }
        ms = (time.perf_counter() - t0) * 1000.0
        return cls(blocks=blocks, n=len(ids), dim=matrix.shape[1], key=key, load_ms=ms)

    def score(self, query: np.ndarray, flt: KernelFilter) -> Scored:
        """Exact semantic scores of exactly the records that pass ``flt`` (stages 1 and 2, fused)."""
        q = normalize(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for (dsl, backend), by_type in self.blocks.items():
            if (flt.dsl is not None and dsl != flt.dsl) or (flt.backend is not None and backend != flt.backend):
                continue
            if flt.op_type is not None:
                b = by_type.get(flt.op_type)
                if b is not None:
                    parts.append((b.ids, cosine_scores(b.matrix, q), b.shapes))
                continue
            for b in by_type.values():  # home rows only: every record once
                h = b.n_home
                parts.append((b.ids[:h], cosine_scores(b.matrix[:h], q), b.shapes[:h]))
        if not parts:
            return Scored(np.zeros(0, dtype=str), np.zeros(0, np.float32), _objects([]), self.n)
        if len(parts) == 1:
            return Scored(*parts[0], n_total=self.n)
        return Scored(*(np.concatenate(col) for col in zip(*parts)), n_total=self.n)

    def search(self, query: np.ndarray, flt: KernelFilter, k: int) -> list[tuple[str, float]]:
        """Stages 1 and 2 alone: the ``k`` best ``(id, semantic score)`` that pass ``flt``."""
        scored = self.score(query, flt)
        return [(str(scored.ids[r]), float(scored.scores[r])) for r in scored.top(k)]

    def rows(self) -> int:
        """Rows held over all blocks (records with several op types count once per type)."""
        return sum(b.ids.size for by_type in self.blocks.values() for b in by_type.values())


def _block(ids: np.ndarray, matrix: np.ndarray, shapes: np.ndarray, home: list[int], fused: list[int]) -> Block:
    """Gather a block's rows (home first) into contiguous arrays."""
    r = np.asarray(home + fused, dtype=np.int64)
    return Block(ids=ids[r], matrix=np.ascontiguousarray(matrix[r]), shapes=shapes[r], n_home=len(home))


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
