"""Stage 2: the hard filter equals filtering the full semantic ranking, on random data in real Chroma."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from akg_rag.dsl import TARGETS
from akg_rag.errors import ConfigError
from akg_rag.optypes import OP_TYPES
from akg_rag.retrieval.filters import KernelFilter, record_op_types
from akg_rag.retrieval.index import KernelIndex
from akg_rag.retrieval.semantic import rank_all

from .conftest import add_records, random_records

DIM = 32
N = 1500


@pytest.fixture(scope="module")
def loaded():
    """A real Chroma collection of random records, its index, and the data it was built from."""
    from akg_rag.store import make_store

    store = make_store(ephemeral=True)
    ids, emb, metas = random_records(N, DIM, seed=7)
    add_records(store, ids, emb, metas)
    # The reference uses the embeddings as stored: Chroma may round what it was given.
    got = store.kernels.get(ids=ids, include=["embeddings"])
    by_id = dict(zip(got["ids"], got["embeddings"]))
    stored = np.asarray([by_id[i] for i in ids], dtype=np.float32)
    return store, KernelIndex.load(store.kernels, page_size=400), ids, stored, metas


def _filters():
    dsls = (None, "triton", "cpp")
    backends = (None, "cuda", "cpu")
    op_types = (None, "softmax", "matmul", "elementwise")
    for dsl, backend, op in itertools.product(dsls, backends, op_types):
        if dsl and backend and (dsl, backend) not in TARGETS:
            continue
        yield KernelFilter(dsl, backend, op)


def test_index_filter_equals_brute_force(loaded):
    _, index, ids, emb, metas = loaded
    by_id = dict(zip(ids, metas))
    rng = np.random.default_rng(3)
    queries = rng.standard_normal((5, DIM)).astype(np.float32)
    queries[0] = emb[3]  # a query equal to a stored record: its duplicates tie exactly
    for q in queries:
        q = q / np.linalg.norm(q)
        reference = rank_all(emb, ids, q)
        for flt in _filters():
            want = flt.apply(reference, by_id)
            assert index.score(q, flt).ids.size == len(want), flt
            for k in (1, 10, len(want) + 5):
                assert index.search(q, flt, k) == want[:k], (flt, k)


def test_nothing_of_another_target_comes_back(loaded):
    _, index, ids, emb, metas = loaded
    by_id = dict(zip(ids, metas))
    for dsl, backend in TARGETS:
        for op in OP_TYPES:
            got = index.score(emb[0], KernelFilter(dsl, backend, op))
            for rid in got.ids:
                meta = by_id[str(rid)]
                assert meta["dsl"] == dsl and meta["backend"] == backend
                assert meta[f"type_{op}"] is True


def test_where_clause_selects_the_same_records(loaded):
    store, _, ids, _, metas = loaded
    for flt in _filters():
        where = flt.where()
        got = store.kernels.get(where=where, include=[]) if where else store.kernels.get(include=[])
        assert set(got["ids"]) == {i for i, m in zip(ids, metas) if flt.matches(m)}, flt


def test_op_type_matches_any_of_the_records_types():
    fused = {"op_type": "matmul", "op_types": "matmul,softmax", "type_matmul": True, "type_softmax": True}
    assert record_op_types(fused) == {"matmul", "softmax"}
    assert KernelFilter(op_type="softmax").matches(fused)
    assert not KernelFilter(op_type="conv").matches(fused)
    # Records written with only the comma-joined string still filter correctly.
    assert KernelFilter(op_type="softmax").matches({"op_type": "matmul", "op_types": "matmul,softmax"})


@pytest.mark.parametrize(
    "kwargs, allowed",
    [({"dsl": "cuda"}, "triton"), ({"backend": "gpu"}, "ascend"), ({"op_type": "gemm"}, "matmul"),
     ({"dsl": "cpp", "backend": "cuda"}, "cpp/cpu")],
)
def test_bad_values_raise_with_the_allowed_ones(kwargs, allowed):
    with pytest.raises(ConfigError, match=allowed):
        KernelFilter(**kwargs)
