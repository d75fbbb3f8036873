"""The finish node's write-back: partial candidates are reported, never stored as full kernels."""

from __future__ import annotations

from types import SimpleNamespace

from akg_rag.graph.context import Context
from akg_rag.graph.finish import finish


class _NoStore:
    """Any use of the store fails the test: a partial candidate must not reach it."""

    def __getattr__(self, name):
        raise AssertionError(f"the store was used ({name}) for a partial candidate")


def test_partial_best_kernel_is_not_written_back():
    ctx = Context(store=_NoStore(), embedder=_NoStore(), write_back=True, run_id="t")
    best = {"code": "class ModelNew: ...", "timings": {"candidate_ms": 1.0}, "iteration": 1, "origin": "llm",
            "partial": True, "partial_ops": ["convolution"]}
    update = finish({"best": best, "message": "done", "written_back": []}, SimpleNamespace(context=ctx))
    assert update["status"] == "verified" and update["written_back"] == []
    assert "not written back: partial candidate" in update["events"][0]["detail"]
    assert "convolution" in update["events"][0]["detail"]
