"""Documents for a query: DSL and backend guides, plus hardware notes for the backend.

Matching rules (the doc chunk metadata keys are ``dsl``, ``backend``, ``hardware``, ``topic``):

* a *hardware document* is one with a non-empty ``hardware`` key, or topic or dsl ``hardware``;
* a DSL document matches the query when its ``dsl`` equals the requested DSL or is empty or
  ``general`` (generic advice applies to every DSL), and its ``backend`` equals the requested
  backend or is empty. An unset request field matches everything;
* a hardware document matches backend ``b`` when its ``backend`` is ``b`` or its ``hardware`` name
  belongs to ``b``'s family: ``cuda`` -> H100/H200 (Hopper, sm_90), ``cpu`` -> x86-64 (AVX),
  ``ascend`` -> Ascend 910B. With no backend requested every hardware document matches.

The docs collection is small (hundreds to a few thousand chunks), so every chunk is scored exactly
against the query embedding; the index is loaded once and reloaded when the collection changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable

import numpy as np

from akg_rag.retrieval.index import fetch, load_rows
from akg_rag.retrieval.results import DocHit
from akg_rag.retrieval.semantic import cosine_scores, normalize, top_k

# Substrings of a (lower-cased) hardware name that place it in a backend's family.
HARDWARE_FAMILIES: dict[str, tuple[str, ...]] = {
    "cuda": ("h100", "h200", "hopper", "sm_90", "sm90", "nvidia"),
    "cpu": ("x86", "avx", "intel", "amd", "epyc", "xeon"),
    "ascend": ("ascend", "910"),
}
GENERAL_DSLS = ("", "general")


def is_hardware_doc(meta: dict[str, Any]) -> bool:
    """True for a chunk of a hardware document."""
    return bool(meta.get("hardware")) or meta.get("topic") == "hardware" or meta.get("dsl") == "hardware"


def dsl_doc_matches(meta: dict[str, Any], dsl: str | None, backend: str | None) -> bool:
    """True when a (non-hardware) chunk applies to the requested DSL and backend."""
    doc_dsl = str(meta.get("dsl") or "")
    doc_backend = str(meta.get("backend") or "")
    return (dsl is None or doc_dsl == dsl or doc_dsl in GENERAL_DSLS) and (
        backend is None or doc_backend in (backend, "")
    )


def hardware_doc_matches(meta: dict[str, Any], backend: str | None) -> bool:
    """True when a hardware chunk describes hardware of the requested backend."""
    if backend is None or meta.get("backend") == backend:
        return True
    name = str(meta.get("hardware") or "").lower()
    return any(token in name for token in HARDWARE_FAMILIES.get(backend, ()))


@dataclass
class DocIndex:
    """Unit embeddings of every doc chunk and the metadata the matching rules read."""

    ids: np.ndarray
    matrix: np.ndarray
    metas: list[dict[str, Any]]
    key: Hashable = None
    _masks: dict[tuple[str | None, str | None], tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def load(cls, collection: Any, key: Hashable = None) -> "DocIndex":
        """Read the docs collection (ids, embeddings, matching keys)."""
        ids, matrix, metas = load_rows(collection, ("dsl", "backend", "hardware", "topic"))
        return cls(ids=np.asarray(ids, dtype=str), matrix=matrix, metas=metas, key=key)

    def masks(self, dsl: str | None, backend: str | None) -> tuple[np.ndarray, np.ndarray]:
        """Boolean masks of the DSL chunks and of the hardware chunks that match the request."""
        if (dsl, backend) in self._masks:
            return self._masks[(dsl, backend)]
        hw = np.fromiter((is_hardware_doc(m) for m in self.metas), bool, len(self.metas))
        dsl_ok = np.fromiter((dsl_doc_matches(m, dsl, backend) for m in self.metas), bool, len(self.metas))
        hw_ok = np.fromiter((hardware_doc_matches(m, backend) for m in self.metas), bool, len(self.metas))
        self._masks[(dsl, backend)] = (dsl_ok & ~hw, hw_ok & hw)
        return self._masks[(dsl, backend)]


def search_docs(
    collection: Any, index: DocIndex, query: np.ndarray, dsl: str | None, backend: str | None,
    n: int = 3, hardware_n: int = 1,
) -> tuple[list[DocHit], int]:
    """The ``n`` best chunks for the query: DSL chunks first, then up to ``hardware_n`` hardware ones.

    ``hardware_n`` of the ``n`` slots are kept for hardware chunks (never all of them when ``n`` > 1,
    so at least one DSL chunk comes back); slots nobody fills go to the other kind. Returns the hits
    and how many chunks passed the matching rules.
    """
    if index.ids.size == 0 or n <= 0:
        return [], 0
    q = normalize(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
    scores = cosine_scores(index.matrix, q)  # a few thousand chunks: score them all exactly
    dsl_mask, hw_mask = index.masks(dsl, backend)
    hw_slots = min(hardware_n, n - 1) if n > 1 else 0
    hw_rows = top_k(scores, index.ids, hw_slots, hw_mask)
    dsl_rows = top_k(scores, index.ids, n - hw_rows.size, dsl_mask)
    if dsl_rows.size + hw_rows.size < n:  # too few DSL chunks: give their slots to hardware ones
        hw_rows = top_k(scores, index.ids, n - dsl_rows.size, hw_mask)
    rows = [int(r) for r in dsl_rows] + [int(r) for r in hw_rows]
    full = fetch(collection, [str(index.ids[r]) for r in rows], documents=True)
    hits = []
    for r in rows:
        rid = str(index.ids[r])
        meta = full.get(rid, {})
        hits.append(
            DocHit(
                id=rid,
                text=meta.get("__document__", ""),
                heading=str(meta.get("heading") or ""),
                source=str(meta.get("source") or ""),
                dsl=str(meta.get("dsl") or ""),
                backend=str(meta.get("backend") or ""),
                score=float(scores[r]),
                hardware=str(meta.get("hardware") or ""),
                topic=str(meta.get("topic") or ""),
            )
        )
    return hits, int(dsl_mask.sum() + hw_mask.sum())
