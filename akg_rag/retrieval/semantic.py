"""Stage 1, semantic: rank kernel records by cosine similarity of computation-logic embeddings.

Embeddings are L2-normalised (the embedder's contract, and the index normalises again on load), so
the cosine is a dot product. It is computed row by row (``einsum``), never by a BLAS matrix-vector
product, for two reasons measured on a 2-core machine:

* a row's score then depends only on the row and the query, bit for bit. BLAS rounds a row's dot
  product differently depending on where the row sits in the matrix (blocking, tails), so kernels
  of different DSLs that share a computation text (identical embeddings) could swap places between
  a partitioned search and a full one;
* a multi-threaded BLAS gemv stalls when the cores are busy (32 ms instead of 0.1 ms for 4k x 384
  while compilers ran beside it); the single-threaded row loop costs about 1.9 ms for 35k x 384
  whatever else runs.

Ties are broken by record id, so a ranking is a total order that does not depend on how records
were partitioned or loaded: a filtered ranking equals the full ranking filtered afterwards.
"""

from __future__ import annotations

import numpy as np


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Return float32 rows scaled to unit L2 norm (zero rows stay zero)."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0).astype(np.float32)


def cosine_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosines in [-1, 1] of every (unit) row of ``matrix`` to the (unit) ``query``, row by row."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    return np.einsum("ij,j->i", matrix, np.asarray(query, dtype=np.float32).reshape(-1))


def top_k(scores: np.ndarray, ids: np.ndarray, k: int, valid: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``k`` best rows, best first, by (score desc, id asc).

    ``valid`` is an optional boolean mask: rows outside it are never returned. Every row tied with the
    k-th score takes part in the tie-break, so the answer equals a full sort cut at ``k``.
    """
    idx = np.flatnonzero(valid) if valid is not None else np.arange(scores.shape[0])
    if k <= 0 or idx.size == 0:
        return np.zeros(0, dtype=np.int64)
    s = scores[idx]
    if idx.size > k:
        kth = np.partition(s, idx.size - k)[idx.size - k]  # the k-th largest score
        keep = s >= kth  # includes every row tied with it
        idx, s = idx[keep], s[keep]
    order = np.lexsort((ids[idx], -s))
    return idx[order[:k]]


def rank_all(matrix: np.ndarray, ids: list[str], query: np.ndarray) -> list[tuple[str, float]]:
    """The full semantic ranking of every record as ``(id, score)``, best first.

    Rows and query are normalised first, as the index normalises them. This is the reference that
    the filtered, pushed-down search must agree with.
    """
    scores = cosine_scores(normalize(matrix), normalize(np.reshape(query, (1, -1)))[0])
    id_arr = np.asarray(ids)
    order = np.lexsort((id_arr, -scores)) if len(ids) else np.zeros(0, dtype=np.int64)
    return [(ids[i], float(scores[i])) for i in order]
