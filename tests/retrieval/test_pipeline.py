"""The pipeline end to end: real ingestion, real analysis, real Chroma, real embedding model."""

from __future__ import annotations

import numpy as np
import pytest

from akg_rag.errors import ConfigError
from akg_rag.retrieval import Query, Retriever
from akg_rag.retrieval.filters import KernelFilter
from akg_rag.retrieval.semantic import rank_all
from akg_rag.retrieval.shapes import combine, parse_shapes, shape_score

from .conftest import FIXTURE_TARGETS, add_records, random_records, task_source


@pytest.fixture(scope="module")
def retriever(knowledge_dir, embedder):
    from akg_rag.store import make_store

    return Retriever(make_store(data_dir=knowledge_dir), embedder)


@pytest.fixture(scope="module")
def softmax_task(tmp_path_factory):
    path = tmp_path_factory.mktemp("query") / "softmax_query.py"
    path.write_text(task_source("softmax", [[128, 4096]]))
    return path


def test_softmax_task_finds_triton_softmax_first(retriever, softmax_task):
    result = retriever.search_task(softmax_task, dsl="triton", backend="cuda", k=4)
    assert result.hits, result.explain()
    assert all((h.dsl, h.backend) == ("triton", "cuda") for h in result.hits)
    # Both softmax kernels share the computation text; the one whose shapes fit better wins.
    top, second = result.hits[0], result.hits[1]
    assert top.op_name == second.op_name == "softmax"
    assert top.semantic_score == pytest.approx(second.semantic_score, abs=1e-6)
    assert top.shape_score > second.shape_score
    assert parse_shapes(top.metadata["shapes"]) == [[64, 4096]]
    assert "ModelNew" in top.code and "code" not in top.metadata
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_explain_counts_are_consistent(retriever, softmax_task):
    result = retriever.search_task(softmax_task, dsl="triton", backend="cuda", k=3)
    n_total = sum(len(t) for t in FIXTURE_TARGETS.values())
    n_triton = sum("triton_cuda" in t for t in FIXTURE_TARGETS.values())
    flt, sem, shape = result.stage("filter"), result.stage("semantic"), result.stage("shape")
    assert (flt.n_in, flt.n_out) == (n_total, n_triton)
    assert sem.n_in == flt.n_out and sem.n_out <= sem.n_in
    assert shape.n_in >= sem.n_out and shape.n_out == len(result.hits) == 3
    text = result.explain()
    for h in result.hits:
        assert h.id in text and f"{h.semantic_score:.3f}" in text and f"{h.score:.3f}" in text
    assert f"{flt.n_in:>8} -> {flt.n_out}" in text
    d = result.to_dict()
    assert [h["id"] for h in d["hits"]] == [h.id for h in result.hits]
    assert d["query"]["shapes"] == [[128, 4096]]


def test_op_type_filter_and_free_text(retriever):
    result = retriever.search_text("rows of a matrix normalised to probabilities", dsl="cpp",
                                   backend="cpu", op_type="softmax", k=10)
    assert {h.op_name for h in result.hits} == {"softmax", "log_softmax"}
    assert all(h.shape_score is None and h.score == h.semantic_score for h in result.hits)
    none = retriever.search_text("softmax", dsl="tilelang", backend="cuda")
    assert none.hits == [] and none.stage("filter").n_out == 0


def test_docs_follow_dsl_and_backend(retriever, softmax_task):
    gpu = retriever.search_task(softmax_task, dsl="triton", backend="cuda", docs=3)
    assert {d.source.split("/")[-1] for d in gpu.docs} == {"reductions.md", "h100.md"}
    assert gpu.docs[-1].hardware == "h100"
    cpu = retriever.search_task(softmax_task, dsl="cpp", backend="cpu", docs=2)
    assert [d.source.split("/")[-1] for d in cpu.docs] == ["openmp.md", "x86_64.md"]
    assert retriever.search_task(softmax_task, dsl="cpp", backend="cpu", docs=0).docs == []


def test_bad_filter_raises(retriever):
    with pytest.raises(ConfigError, match="triton"):
        retriever.search_text("softmax", dsl="pallas")


def test_index_reloads_after_a_write(ephemeral_store, embedder):
    store = ephemeral_store
    retriever = Retriever(store, embedder)
    ids, emb, metas = random_records(40, embedder.dim, seed=1)
    add_records(store, ids, emb, metas)
    q = Query("unused", k=3)
    first = retriever.search_vector(emb[5], q, docs=0)
    assert first.stage("index").note == "reloaded" and first.hits[0].id == ids[5]
    assert retriever.search_vector(emb[5], q, docs=0).stage("index").note == "cached"
    # A new record identical to the query must appear at once.
    new_meta = dict(metas[5], op_name="fresh")
    add_records(store, ["kernel:fresh"], emb[5:6], [new_meta])
    after = retriever.search_vector(emb[5], q, docs=0)
    assert after.stage("index").note == "reloaded"
    assert {h.id for h in after.hits[:2]} == {ids[5], "kernel:fresh"}
    # An in-place metadata change (same count) is seen too: the store's revision moved.
    store.update_metadata("kernels", [ids[5]], [dict(metas[5], dsl="tilelang", backend="cuda")])
    moved = retriever.search_vector(emb[5], Query("unused", dsl="tilelang", backend="cuda", k=50), docs=0)
    assert ids[5] in [h.id for h in moved.hits]
    store.delete("kernels", ids=["kernel:fresh"])
    assert "kernel:fresh" not in [h.id for h in retriever.search_vector(emb[5], q, docs=0).hits]


def test_final_order_equals_brute_force(ephemeral_store, embedder):
    """Pool widening makes the final top k exact under the combined score."""
    store = ephemeral_store
    ids, emb, metas = random_records(1200, embedder.dim, seed=5)
    add_records(store, ids, emb, metas)
    got = store.kernels.get(ids=ids, include=["embeddings"])
    stored = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32)))
    by_id = dict(zip(ids, metas))
    retriever = Retriever(store, embedder, pool=3)  # a tiny pool: widening must do the work
    rng = np.random.default_rng(0)
    for trial in range(6):
        q = emb[rng.integers(len(ids))] + 0.3 * rng.standard_normal(embedder.dim).astype(np.float32)
        shapes = [[int(d) for d in rng.choice([-1, 64, 128, 1000, 4096], size=rng.integers(1, 4))]]
        flt = KernelFilter(*[("triton", "cuda", None), (None, None, "softmax"), ("cpp", "cpu", "matmul")][trial % 3])
        query = Query("unused", flt.dsl, flt.backend, flt.op_type, shapes, k=8)
        ranking = flt.apply(rank_all(np.stack([stored[i] for i in ids]), ids, q), by_id)
        finals = sorted(
            ((-combine(s, shape_score(shapes, parse_shapes(by_id[i].get("shapes")))), i) for i, s in ranking)
        )
        result = retriever.search_vector(q, query, docs=0)
        assert [h.id for h in result.hits] == [i for _, i in finals[:8]]
        assert [h.score for h in result.hits] == pytest.approx([-f for f, _ in finals[:8]], abs=1e-9)
