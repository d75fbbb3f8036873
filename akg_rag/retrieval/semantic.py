"""Stage 1, semantic: rank kernel records by cosine similarity of computation-logic embeddings.

Embeddings are L2-normalised (the embedder's contract, and the index normalises again on load), so
the cosine is a dot product. Two ways of computing it are used, on purpose:

* :func:`fast_scores` -- a BLAS matrix-vector product over a whole partition (about 1 ms for 20k
  rows of 384 floats). BLAS may round a row's dot product differently depending on where the row
  sits in the matrix (blocking and tails), by a few float32 ulps;
* :func:`exact_scores` -- a per-row reduction whose result depends only on the row and the query,
  never on its neighbours. The shortlist that the fast scores select (widened by
  :data:`SCORE_MARGIN`, far above the BLAS rounding) is rescored with it.

The *semantic score* of a record is always its exact score, and ties are broken by record id. So
a ranking is a total order that does not depend on how records were partitioned or loaded -- which
is what makes a filtered ranking equal to the full ranking filtered afterwards, bit for bit, even
for kernels of different DSLs that share one computation text (identical embeddings).
"""

from __future__ import annotations

import numpy as np

# Upper bound on |fast - exact| for unit vectors: float32 dot products of 384 terms round to a few
# 1e-8 (measured 6e-8); 1e-4 leaves a wide margin for longer embeddings and unnormalised inputs.
SCORE_MARGIN = 1e-4


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Return float32 rows scaled to unit L2 norm (zero rows stay zero)."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0).astype(np.float32)


def fast_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Approximate cosines (within :data:`SCORE_MARGIN`) of every row of ``matrix`` to ``query``."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    return matrix @ np.asarray(query, dtype=np.float32).reshape(-1)


def exact_scores(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosines in [-1, 1] computed row by row: a row's score never depends on the other rows."""
    if vectors.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    return np.einsum("ij,j->i", vectors, np.asarray(query, dtype=np.float32).reshape(-1))


def shortlist(fast: np.ndarray, k: int, margin: float = SCORE_MARGIN) -> np.ndarray:
    """Indices of every row whose fast score is within ``margin`` of the k-th best fast score.

    The exact top ``k`` is always inside this set (the fast and exact scores differ by less than
    half the margin), so rescoring it exactly gives the same answer as rescoring everything.
    """
    n = fast.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if n <= k:
        return np.arange(n)
    kth = np.partition(fast, n - k)[n - k]  # the k-th largest fast score
    return np.flatnonzero(fast >= kth - margin)


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
        kth = np.partition(s, idx.size - k)[idx.size - k]
        keep = s >= kth  # includes every row tied with the k-th
        idx, s = idx[keep], s[keep]
    order = np.lexsort((ids[idx], -s))
    return idx[order[:k]]


def rank_all(matrix: np.ndarray, ids: list[str], query: np.ndarray) -> list[tuple[str, float]]:
    """The full semantic ranking of every record as ``(id, score)``, best first.

    Rows and query are normalised first, as the index normalises them. This is the reference that
    the filtered, pushed-down search must agree with.
    """
    scores = exact_scores(normalize(matrix), normalize(np.reshape(query, (1, -1)))[0])
    id_arr = np.asarray(ids)
    order = np.lexsort((id_arr, -scores)) if len(ids) else np.zeros(0, dtype=np.int64)
    return [(ids[i], float(scores[i])) for i in order]
