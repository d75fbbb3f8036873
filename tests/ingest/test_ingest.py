"""Ingesting the fixture corpus into real stores: queries, idempotence, edits, deletions, roots."""

from __future__ import annotations

import shutil

from ingest.runner import ingest

DOC_SOURCES = {
    "corpus/docs/cpp/vectorization.md",
    "corpus/docs/hardware/h200.md",
    "corpus/docs/triton/reductions.md",
}
KERNEL_SOURCES = {"corpus/kernels/relu/cpp_cpu.py", "corpus/kernels/row_softmax/cpp_cpu.py"}


def snapshot(store):
    """Everything the store holds except embeddings: {collection: {id: (document, metadata)}}."""
    return {
        name: {item.id: (item.document, item.metadata) for item in store.get_many(name)}
        for name in ("docs", "kernels")
    }


def test_ingest_then_query(any_store, counting, corpus, analyze):
    report = ingest([corpus], any_store, counting, analyze=analyze)
    assert report.rejected == [] and report.exit_code == 0
    assert set(report.added) == DOC_SOURCES | KERNEL_SOURCES
    assert any_store.count("kernels") == 2
    assert report.embedded == counting.texts == any_store.count("docs") + 2

    [query] = counting.embed(["reduce each row of a block with tl.max and a mask"])
    hits = any_store.docs.query(query_embeddings=[query.tolist()], n_results=1, where={"dsl": "triton"})
    assert hits["metadatas"][0][0]["heading"] == "Reductions > Row-wise"
    assert hits["metadatas"][0][0]["backend"] == "cuda"

    [query] = counting.embed(["softmax along the last axis of a 2-D float tensor"])
    hits = any_store.kernels.query(query_embeddings=[query.tolist()], n_results=1,
                                   where={"$and": [{"dsl": "cpp"}, {"backend": "cpu"}]})
    meta = hits["metadatas"][0][0]
    assert meta["source"] == "corpus/kernels/row_softmax/cpp_cpu.py"
    assert meta["op_type"] == "softmax" and meta["origin"] == "seed" and "ModelNew" in meta["code"]
    assert hits["ids"][0][0].startswith("kernel:cpp:cpu:")


def test_second_ingest_embeds_nothing(persistent_store, counting, corpus, analyze):
    ingest([corpus], persistent_store, counting, analyze=analyze)
    before, revision, texts = snapshot(persistent_store), persistent_store.revision("docs"), counting.texts
    calls = []
    report = ingest([corpus], persistent_store, counting, analyze=lambda *a: calls.append(a))
    assert counting.texts == texts  # no embedding
    assert calls == []  # unchanged kernel folders are not even analysed
    assert set(report.unchanged) == DOC_SOURCES | KERNEL_SOURCES
    assert report.added == report.updated == report.removed == []
    assert snapshot(persistent_store) == before
    assert persistent_store.revision("docs") == revision  # nothing written


def test_edit_reembeds_only_changed_chunks(ephemeral_store, counting, corpus, analyze):
    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    doc = corpus / "docs" / "triton" / "reductions.md"
    doc.write_text(doc.read_text().replace("strip of columns", "band of columns"))
    texts = counting.texts
    report = ingest([corpus], ephemeral_store, counting, analyze=analyze)
    assert report.updated == ["corpus/docs/triton/reductions.md"]
    assert counting.texts - texts == 1  # only the Column-wise chunk changed
    [chunk] = [i for i in ephemeral_store.get_many("docs", where={"heading": "Reductions > Column-wise"})]
    assert "band of columns" in chunk.document


def test_shrinking_doc_leaves_no_stale_chunks(ephemeral_store, counting, corpus, analyze):
    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    doc = corpus / "docs" / "triton" / "reductions.md"
    doc.write_text("# Reductions\n\nOnly one section now.\n")
    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    rows = ephemeral_store.get_many("docs", where={"source": "corpus/docs/triton/reductions.md"})
    assert [r.id for r in rows] == ["doc:corpus/docs/triton/reductions.md:0"]
    assert rows[0].metadata["n_chunks"] == 1 and rows[0].metadata["dsl"] == "triton"  # from the folder now


def test_kernel_code_edit_replaces_the_record(ephemeral_store, counting, corpus, analyze):
    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    [old] = ephemeral_store.get_many("kernels", where={"op_type": "elementwise"})
    candidate = corpus / "kernels" / "relu" / "cpp_cpu.py"
    candidate.write_text(candidate.read_text().replace("-O3", "-O2"))
    texts = counting.texts
    report = ingest([corpus], ephemeral_store, counting, analyze=analyze)
    assert report.updated == ["corpus/kernels/relu/cpp_cpu.py"]
    [new] = ephemeral_store.get_many("kernels", where={"op_type": "elementwise"})
    assert new.id != old.id and "-O2" in new.metadata["code"]
    assert counting.texts == texts  # same computation text: the stored embedding is reused


def test_deleted_files_are_removed_within_their_root_only(ephemeral_store, counting, corpus, tmp_path, analyze):
    other = tmp_path / "notes"
    (other / "triton").mkdir(parents=True)
    (other / "triton" / "tips.md").write_text("# Tips\n\nUse tl.constexpr block sizes.\n")
    ingest([corpus, other], ephemeral_store, counting, analyze=analyze)
    (corpus / "docs" / "cpp" / "vectorization.md").unlink()
    shutil.rmtree(corpus / "kernels" / "relu")
    report = ingest([corpus], ephemeral_store, counting, analyze=analyze)
    assert sorted(report.removed) == ["corpus/docs/cpp/vectorization.md", "corpus/kernels/relu/cpp_cpu.py"]
    sources = {i.metadata["source"] for i in ephemeral_store.get_many("docs")}
    assert "notes/triton/tips.md" in sources and "corpus/docs/cpp/vectorization.md" not in sources
    assert ephemeral_store.count("kernels") == 1


def test_single_file_argument_touches_only_that_file(ephemeral_store, counting, corpus, analyze):
    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    before = snapshot(ephemeral_store)
    report = ingest([corpus / "docs" / "triton" / "reductions.md"], ephemeral_store, counting, analyze=analyze)
    assert report.added == ["triton/reductions.md"] and report.removed == []
    after = snapshot(ephemeral_store)
    assert {k: v for k, v in after["docs"].items() if k in before["docs"]} == before["docs"]


def test_dry_run_writes_nothing(persistent_store, counting, corpus, analyze):
    report = ingest([corpus], persistent_store, counting, dry_run=True, analyze=analyze)
    assert set(report.added) == DOC_SOURCES | KERNEL_SOURCES and report.rows_written > 0
    assert counting.texts == 0
    assert persistent_store.count("docs") == persistent_store.count("kernels") == 0
    assert persistent_store.revision("docs") == persistent_store.revision("kernels") == 0


def test_reset_rebuilds_from_scratch(ephemeral_store, counting, corpus, tmp_path, analyze):
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "a.md").write_text("# Stray\n\nSomething else.\n")
    ingest([corpus, stray], ephemeral_store, counting, analyze=analyze)
    total = ephemeral_store.count("docs") + ephemeral_store.count("kernels")
    dry = ingest([corpus], ephemeral_store, counting, reset=True, dry_run=True, analyze=analyze)
    assert dry.reset == total and set(dry.added) == DOC_SOURCES | KERNEL_SOURCES
    report = ingest([corpus], ephemeral_store, counting, reset=True, analyze=analyze)
    assert report.reset == total and set(report.added) == DOC_SOURCES | KERNEL_SOURCES
    sources = {i.metadata["source"] for i in ephemeral_store.get_many("docs")}
    assert sources == DOC_SOURCES  # the other root is gone too: --reset empties the store


def test_run_kernels_survive_reingest(ephemeral_store, counting, corpus, analyze):
    from akg_rag.records import KernelRecord, add_kernel, parse_sidecar

    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    sidecar = parse_sidecar('{"dsl": "cpp", "backend": "cpu", "arch": "x86_64", "description": "run", "origin": "run"}')
    analysis = analyze(corpus / "kernels" / "relu" / "task.py", (corpus / "kernels" / "relu" / "task.py").read_text())
    record = KernelRecord.build(sidecar, "class ModelNew: pass  # from a run", analysis, "run:abc")
    assert add_kernel(ephemeral_store, counting, record)
    shutil.rmtree(corpus / "kernels")
    ingest([corpus], ephemeral_store, counting, analyze=analyze)
    assert [i.id for i in ephemeral_store.get_many("kernels")] == [record.id]
