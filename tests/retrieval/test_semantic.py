"""Stage 1: cosine ranking, the id tie-break, and top_k agreeing with a full sort."""

from __future__ import annotations

import numpy as np

from akg_rag.retrieval.semantic import cosine_scores, normalize, rank_all, top_k


def test_related_computation_ranks_first(embedder):
    texts = [
        "C = A @ B: matrix multiplication of two 2-D float tensors with fp32 accumulation",
        "y = exp(x - max(x, dim=-1)) / sum(exp(x - max(x, dim=-1)), dim=-1): softmax over the last dim",
        "y = max(x, 0): elementwise relu",
    ]
    matrix = embedder.embed(texts)
    query = embedder.embed(["softmax along the last dimension of a 2-D tensor"])[0]
    ranking = rank_all(matrix, ["matmul", "softmax", "relu"], query)
    assert ranking[0][0] == "softmax"
    scores = [s for _, s in ranking]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0 <= s <= 1.0 for s in scores)


def test_scores_are_cosines():
    rng = np.random.default_rng(0)
    raw = rng.standard_normal((50, 16))
    q = rng.standard_normal(16)
    want = raw @ q / (np.linalg.norm(raw, axis=1) * np.linalg.norm(q))
    got = cosine_scores(normalize(raw), normalize(q[None])[0])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_scores_do_not_depend_on_neighbouring_rows():
    """Bit-identical scores for a row wherever it sits: what makes partitioned search equal full search."""
    rng = np.random.default_rng(2)
    matrix = normalize(rng.standard_normal((300, 384)))
    q = normalize(rng.standard_normal((1, 384)))[0]
    full = cosine_scores(matrix, q)
    for rows in (np.arange(1), np.arange(3, 9), rng.permutation(300)[:77], np.repeat([5], 11)):
        assert np.array_equal(cosine_scores(matrix[rows], q), full[rows])


def test_top_k_equals_full_sort_with_ties():
    rng = np.random.default_rng(1)
    # Few distinct values: many exact ties, including across the k-th position.
    scores = rng.integers(0, 5, size=200).astype(np.float32)
    ids = np.asarray([f"id{rng.integers(10**6):07d}-{i}" for i in range(200)])
    full = np.lexsort((ids, -scores))
    for k in (1, 3, 17, 60, 200, 500):
        assert list(top_k(scores, ids, k)) == list(full[:k])
    valid = rng.random(200) < 0.3
    masked = [i for i in full if valid[i]]
    assert list(top_k(scores, ids, 10, valid)) == masked[:10]
    assert top_k(scores, ids, 0).size == 0
    assert top_k(scores, ids, 5, np.zeros(200, bool)).size == 0
