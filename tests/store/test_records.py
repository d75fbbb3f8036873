"""Sidecar validation, flat metadata, kernel records and add_kernel against a real store."""

from __future__ import annotations

import json
import pytest

from akg_rag.analysis import TaskAnalysis, TensorSpec
from akg_rag.errors import MetadataError
from akg_rag.records import (
    DocChunk,
    KernelRecord,
    add_kernel,
    from_chroma_metadata,
    parse_sidecar,
    to_chroma_metadata,
)

SIDECAR = {
    "dsl": "triton",
    "backend": "cuda",
    "arch": "sm_90",
    "description": "row softmax, one program per row",
    "tunables": {"BLOCK_SIZE": 1024, "num_warps": 4},
    "sketch": "sketch softmax {}",
    "measured": {"candidate_ms": 0.12, "eager_ms": 0.2, "speedup_eager": 1.6, "device": "NVIDIA H200",
                 "baseline": "torch 2.11 eager", "dtype": "float32"},
    "origin": "seed",
}


def gemm_analysis(**changes) -> TaskAnalysis:
    """A real TaskAnalysis record for a dynamic-shape gemm + bias + relu task."""
    fields = dict(
        op_name="gemm_bias_relu",
        op_type="matmul",
        op_types=["elementwise", "matmul"],
        computation="y = relu(x @ W^T + b) for x[M, K], W[N, K]",
        inputs=[TensorSpec((-1, 512), "float32")],
        outputs=[TensorSpec((-1, 256), "float32")],
        input_sets=[[TensorSpec((8, 512), "float32")], [TensorSpec((64, 512), "float32")]],
        dtype="float32",
        flops=123456,
        min_bytes=7890,
        aten_ops=["aten.addmm", "aten.relu"],
        task_hash="0123456789abcdef",
    )
    return TaskAnalysis(**{**fields, **changes})


def sidecar(**changes):
    data = {**SIDECAR, **changes}
    return parse_sidecar(json.dumps(data), "k/triton_cuda.json")


def test_valid_sidecar_defaults():
    minimal = parse_sidecar(json.dumps({"dsl": "cpp", "backend": "cpu", "arch": "x86_64", "description": "d"}))
    assert minimal.origin == "seed" and minimal.tunables == {} and minimal.sketch == ""
    assert minimal.measured.candidate_ms is None
    assert sidecar(backend="cpu").backend == "cpu"  # triton/cpu (the interpreter) is a known target


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, "colour: unknown key"),
        ({"dsl": "fortran"}, "dsl: Input should be"),
        ({"dsl": "cpp", "backend": "cuda"}, "unknown target cpp/cuda"),
        ({"description": "  "}, "description: Value error, must not be empty"),
        ({"measured": {"candidate_ms": -1}}, "measured.candidate_ms: Input should be greater than 0"),
        ({"measured": {"speed": 2}}, "measured.speed: unknown key"),
        ({"origin": "internet"}, "origin: Input should be 'seed' or 'run'"),
    ],
)
def test_invalid_sidecar_messages(changes, message):
    with pytest.raises(MetadataError, match=message.replace("(", r"\(")) as info:
        sidecar(**changes)
    assert info.value.path == "k/triton_cuda.json" and "\n" not in str(info.value)


def test_sidecar_not_json_or_not_object():
    with pytest.raises(MetadataError, match="invalid JSON at line 1"):
        parse_sidecar("{nope", "x.json")
    with pytest.raises(MetadataError, match="expected a JSON object, got list"):
        parse_sidecar("[]", "x.json")


def test_flat_metadata_round_trip():
    flat = to_chroma_metadata({"a": None, "b": True, "n": 3, "x": 1.5, "s": "t", "shapes": [[1, -1]],
                               "tunables": {"B": 64}})
    assert flat == {"b": True, "n": 3, "x": 1.5, "s": "t", "shapes": "[[1,-1]]", "tunables": '{"B":64}'}
    assert isinstance(flat["b"], bool)
    back = from_chroma_metadata({**flat, "op_types": "matmul,elementwise"})
    assert back["shapes"] == [[1, -1]] and back["tunables"] == {"B": 64}
    assert back["op_types"] == ["matmul", "elementwise"]
    with pytest.raises(TypeError, match="cannot store a set"):
        to_chroma_metadata({"bad": {1}})


def test_kernel_record_follows_the_contract():
    code = "class ModelNew: pass\n"
    record = KernelRecord.build(sidecar(), code, gemm_analysis(), "knowledge/kernels/g/triton_cuda.py",
                                root="knowledge", file_hash="f" * 16)
    meta = record.metadata
    assert record.id.startswith("kernel:triton:cuda:gemm_bias_relu:0123456789abcdef:")
    assert len(record.id.rsplit(":", 1)[1]) == 8
    assert record.document == meta["computation"] == gemm_analysis().computation
    assert meta["op_types"] == "matmul,elementwise"  # priority order, comma-joined
    assert meta["type_matmul"] is True and meta["type_elementwise"] is True and "type_conv" not in meta
    assert json.loads(meta["shapes"]) == [[-1, 512]] and json.loads(meta["output_shapes"]) == [[-1, 256]]
    assert meta["dynamic"] is True
    assert meta["candidate_ms"] == 0.12 and meta["speedup_eager"] == 1.6
    assert "compile_ms" not in meta and "speedup_compile" not in meta  # unknown: absent
    assert meta["baseline"] == "torch 2.11 eager" and meta["device"] == "NVIDIA H200"
    assert meta["code"] == code and meta["sketch"] == "sketch softmax {}"
    assert meta["origin"] == "seed" and meta["flops"] == 123456 and meta["min_bytes"] == 7890
    assert meta["arch"] == "sm_90" and meta["dtype"] == "float32" and meta["task_hash"] == "0123456789abcdef"
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())


def test_content_hash_tracks_content_not_location():
    a = KernelRecord.build(sidecar(), "code A", gemm_analysis(), "x/a.py", root="x")
    moved = KernelRecord.build(sidecar(), "code A", gemm_analysis(), "y/b.py", root="y")
    edited = KernelRecord.build(sidecar(), "code B", gemm_analysis(), "x/a.py", root="x")
    assert a.id == moved.id and a.metadata["content_hash"] == moved.metadata["content_hash"]
    assert a.id != edited.id and a.metadata["content_hash"] != edited.metadata["content_hash"]


def test_doc_chunk_id_document_metadata():
    chunk = DocChunk(source="k/docs/triton/r.md", index=2, heading="Triton > Reductions", text="body",
                     dsl="triton", backend="cuda", topic="reductions", root="k", file_hash="h", n_chunks=3)
    assert chunk.id == "doc:k/docs/triton/r.md:2"
    assert chunk.document == "Triton > Reductions\n\nbody"
    meta = chunk.metadata()
    assert meta["chunk"] == 2 and meta["heading"] == "Triton > Reductions" and "hardware" not in meta
    assert len(meta["content_hash"]) == 16


def test_add_kernel_is_idempotent(ephemeral_store, embedder):
    record = KernelRecord.build(sidecar(origin="run"), "class ModelNew: pass", gemm_analysis(), "run-42")
    revision = ephemeral_store.revision("kernels")
    assert add_kernel(ephemeral_store, embedder, record) is True
    assert add_kernel(ephemeral_store, embedder, record) is False
    assert ephemeral_store.count("kernels") == 1
    stored = ephemeral_store.get("kernels", record.id, embedding=True)
    assert stored.metadata["origin"] == "run" and "root" not in stored.metadata
    assert stored.document == record.document and len(stored.embedding) == embedder.dim
    assert ephemeral_store.revision("kernels") > revision
