"""The retriever: chains the semantic, filter and shape stages and fetches documents for the query.

Order of work for one query (each step is a :class:`StageReport` in the result):

1. ``index``    -- check the cached index against the store's revision of the collection; reload if stale;
2. ``filter``   -- keep the (dsl, backend) partitions and op-type mask that the request names
                   (stage 2, pushed *before* scoring: exact, so it equals filtering the full ranking);
3. ``semantic`` -- cosine of the query's computation embedding to every surviving record (stage 1),
                   cut to a pool of the best candidates;
4. ``shape``    -- shape compatibility of the pool (stage 3) and the final order; the pool is widened
                   to every record whose semantic score could still reach the top k, so the final
                   top k is exact under the combined score;
5. ``fetch``    -- full metadata and code of the final hits;
6. ``docs``     -- document chunks for the same query embedding.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from akg_rag.errors import ConfigError, StoreError
from akg_rag.retrieval.docs import DocIndex, search_docs
from akg_rag.retrieval.filters import KernelFilter
from akg_rag.retrieval.index import KernelIndex, Progress, fetch
from akg_rag.retrieval.results import KernelHit, Query, RetrievalResult, StageReport
from akg_rag.retrieval.shapes import combine, parse_shapes, semantic_floor, shape_score

POOL = 20  # semantic candidates handed to the shape stage at least (widened exactly when needed)
HIDDEN_KEYS = ("code",)  # carried in KernelHit.code, not repeated in KernelHit.metadata


class Retriever:
    """Three-stage kernel retrieval plus documents over a knowledge store.

    ``store`` is a :class:`~akg_rag.store.KnowledgeStore` (``snapshot``, ``reading``, ``refresh``);
    ``embedder`` provides ``.embed(list[str]) -> (n, dim)`` unit float32 rows.
    """

    def __init__(self, store: Any, embedder: Any, pool: int = POOL, progress: Progress | None = None):
        self.store = store
        self.embedder = embedder
        self.pool = pool
        self.progress = progress
        self._kernels: KernelIndex | None = None
        self._docs: DocIndex | None = None
        # Collection handles of the current query, taken from store.snapshot(): a handle kept across
        # queries would outlive a reset (which recreates the collections under new ids).
        self._collections: dict[str, Any] = {}

    def collection(self, name: str) -> Any:
        """The store's ``kernels`` or ``docs`` collection (the handle checked at the last query)."""
        if name not in self._collections:
            self._key(name)
        return self._collections[name]

    # -- cached indexes -------------------------------------------------------------------------
    def _key(self, name: str) -> Any:
        # The store stamps every write with a new version (kept in Chroma, so other processes'
        # writes and resets show too) and hands back a current handle with it, in one lookup
        # (~0.3 ms). collection.count() costs more and grows with the collection, so it is not used.
        col, version = self.store.snapshot(name)
        self._collections[name] = col
        return version

    def reload(self) -> None:
        """Forget the cached indexes and handles (needed only after writes that bypass the store)."""
        self._kernels = None
        self._docs = None
        self._collections.clear()

    def kernel_index(self) -> tuple[KernelIndex, bool]:
        """The kernel index, reloaded when the store changed; also says whether it was reloaded."""
        key = self._key("kernels")
        if self._kernels is None or self._kernels.key != key:
            self._kernels = KernelIndex.load(self.collection("kernels"), key=key, progress=self.progress)
            return self._kernels, True
        return self._kernels, False

    def doc_index(self) -> DocIndex:
        """The docs index, reloaded when the store changed."""
        key = self._key("docs")
        if self._docs is None or self._docs.key != key:
            self._docs = DocIndex.load(self.collection("docs"), key=key)
        return self._docs

    # -- queries --------------------------------------------------------------------------------
    def search_task(
        self, task: str | Path | Any, *, dsl: str | None = None, backend: str | None = None,
        op_type: str | None = None, k: int = 5, docs: int = 3, hardware_docs: int = 1,
    ) -> RetrievalResult:
        """Retrieve kernels and documents for a task file or its ``TaskAnalysis``.

        The query text is the task's computation logic; its shapes are the task's input shapes.
        ``op_type=None`` does not filter by op type (pass ``analysis.op_type`` to do so).
        """
        if isinstance(task, (str, Path)):
            from akg_rag.analysis import analyze_task

            task = analyze_task(task)
        shapes = [list(spec.shape) for spec in task.inputs]
        query = Query(task.computation, dsl, backend, op_type, shapes, k, op_name=task.op_name)
        return self.search(query, docs=docs, hardware_docs=hardware_docs)

    def search_text(
        self, text: str, *, dsl: str | None = None, backend: str | None = None,
        op_type: str | None = None, shapes: Sequence[Sequence[int]] | None = None, k: int = 5,
        docs: int = 3, hardware_docs: int = 1,
    ) -> RetrievalResult:
        """Retrieve kernels and documents for free text (and optional input shapes)."""
        norm_shapes = None if shapes is None else [[int(d) for d in s] for s in shapes]
        query = Query(text, dsl, backend, op_type, norm_shapes, k)
        return self.search(query, docs=docs, hardware_docs=hardware_docs)

    def search(self, query: Query, *, docs: int = 3, hardware_docs: int = 1) -> RetrievalResult:
        """Embed ``query.text`` and run :meth:`search_vector`."""
        vector = np.asarray(self.embedder.embed([query.text]), dtype=np.float32)[0]
        return self.search_vector(vector, query, docs=docs, hardware_docs=hardware_docs)

    def search_vector(
        self, vector: np.ndarray, query: Query, *, docs: int = 3, hardware_docs: int = 1
    ) -> RetrievalResult:
        """Run every stage for an already embedded query (the benchmark times this).

        The query reads one state of the store (``store.reading()``). A collection that vanished or
        a view that lost rows mid-query (another client reset the store, or wrote to an embedded
        store without going through :class:`~akg_rag.store.KnowledgeStore`) costs one retry from a
        fresh view; a second failure is a ``StoreError`` that says what to do.
        """
        from chromadb.errors import InternalError, NotFoundError

        flt = KernelFilter(query.dsl, query.backend, query.op_type)  # validates before any work
        for attempt in (1, 2):
            try:
                with self.store.reading():
                    return self._search(vector, query, flt, docs, hardware_docs)
            except (NotFoundError, InternalError) as e:
                self.reload()
                if attempt == 2:
                    raise StoreError(
                        f"the knowledge store at {getattr(self.store, 'location', '?')} changed under this "
                        f"query twice ({type(e).__name__}: {e}); if processes on several machines, or "
                        "programs other than akg-rag, write to it, serve it with `chroma run --path DIR` "
                        "and pass --chroma-url") from None
                self.store.refresh()
        raise AssertionError("unreachable")

    def _search(
        self, vector: np.ndarray, query: Query, flt: KernelFilter, docs: int, hardware_docs: int
    ) -> RetrievalResult:
        """Every stage of one query, inside the store's read lock."""
        stages: list[StageReport] = []

        t = time.perf_counter()
        index, reloaded = self.kernel_index()
        stages.append(StageReport("index", index.n, index.n, _ms(t), "reloaded" if reloaded else "cached"))
        if index.n and vector.shape[-1] != index.dim:
            raise ConfigError(
                f"the query embedding has {vector.shape[-1]} dims but the store's kernels have "
                f"{index.dim}; re-ingest the knowledge base with the current embedder"
            )

        t = time.perf_counter()
        scored = index.score(vector, flt)
        n_match = int(scored.ids.size)
        semantic = {int(r): float(scored.scores[r]) for r in scored.top(max(self.pool, query.k))}
        stages.append(StageReport("filter", index.n, n_match, 0.0, f"{flt.describe()}; fused with semantic"))
        stages.append(StageReport("semantic", n_match, len(semantic), _ms(t)))

        t = time.perf_counter()
        rows, shape_of, final = self._shape_stage(scored, semantic, query)
        stages.append(StageReport("shape", len(shape_of), len(rows), _ms(t)))

        t = time.perf_counter()
        full = fetch(self.collection("kernels"), [str(scored.ids[r]) for r in rows])
        # A record deleted since the index loaded has no metadata left: it is dropped, not shown blank.
        hits = [
            self._hit(scored, r, semantic[r], shape_of[r], final[r], full)
            for r in rows
            if str(scored.ids[r]) in full
        ]
        stages.append(StageReport("fetch", len(rows), len(hits), _ms(t)))

        doc_hits = []
        if docs > 0:
            t = time.perf_counter()
            doc_index = self.doc_index()
            doc_hits, n_docs = search_docs(
                self.collection("docs"), doc_index, vector, query.dsl, query.backend, docs, hardware_docs
            )
            stages.append(StageReport("docs", n_docs, len(doc_hits), _ms(t), f"of {doc_index.ids.size} chunks"))
        return RetrievalResult(hits=hits, docs=doc_hits, stages=stages, query=query)

    def _shape_stage(
        self, scored: Any, semantic: dict[int, float], query: Query
    ) -> tuple[list[int], dict[int, float | None], dict[int, float]]:
        """Shape-score the pool, widen it to every record that could still reach the top k, rank.

        ``semantic`` (row -> score) gains the rows the widening adds.
        """
        shape_of: dict[int, float | None] = {}
        final: dict[int, float] = {}

        def rate(rows: Any) -> None:
            for r in rows:
                shape_of[r] = shape_score(query.shapes, parse_shapes(scored.shapes[r]))
                final[r] = combine(semantic[r], shape_of[r])

        rate(list(semantic))
        if query.shapes is not None and len(final) >= query.k > 0:
            # A record outside the pool can still win if a perfect shape score lifts it over the
            # k-th final score; bring every such record into the pool.
            kth = sorted(final.values(), reverse=True)[query.k - 1]
            floor = semantic_floor(kth)
            extra = [int(r) for r in np.flatnonzero(scored.scores >= floor) if int(r) not in semantic]
            semantic.update((r, float(scored.scores[r])) for r in extra)
            rate(extra)
        order = sorted(final, key=lambda r: (-final[r], str(scored.ids[r])))
        return order[: query.k], shape_of, final

    @staticmethod
    def _hit(
        scored: Any, row: int, semantic: float, shape: float | None, final: float, full: dict[str, Any]
    ) -> KernelHit:
        """Build the typed hit of one result row from its scores and fetched metadata."""
        rid = str(scored.ids[row])
        meta = full[rid]
        return KernelHit(
            id=rid,
            op_name=str(meta.get("op_name") or ""),
            op_type=str(meta.get("op_type") or ""),
            dsl=str(meta.get("dsl") or ""),
            backend=str(meta.get("backend") or ""),
            semantic_score=semantic,
            shape_score=shape,
            score=final,
            metadata={k: v for k, v in meta.items() if k not in HIDDEN_KEYS},
            code=str(meta.get("code") or ""),
        )


def _ms(start: float) -> float:
    """Milliseconds since ``start`` (a ``time.perf_counter()`` reading)."""
    return (time.perf_counter() - start) * 1000.0
