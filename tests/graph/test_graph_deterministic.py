"""The graph without a chat model: adapting a matching kernel, and saying so when nothing matches."""

from __future__ import annotations

from akg_rag.graph.context import Context
from akg_rag.graph.graph import generate

from .conftest import TASK, UNMATCHED_TASK


def test_adapts_the_retrieved_kernel_to_the_task(seeded_store, embedder, fast_options):
    ctx = Context(store=seeded_store, embedder=embedder, verify_options=fast_options, max_opt_passes=0,
                  write_back=False)
    state = generate(str(TASK), dsl="cpp", backend="cpu", context=ctx)

    assert state["status"] == "verified", state["message"]
    [attempt] = state["attempts"]
    assert attempt["origin"] == state["kernel_hits"][0]["id"] and attempt["status"] == "correct"
    assert attempt["timings"]["candidate_ms"] > 0
    # Verified at the task's shapes (6 x 300), not the seed task's (4 x 257); the constructors
    # already agree (ModelNew(dim=1)), so the kernel is used as retrieved. Wrapping is test_adapt's.
    assert state["best"]["code"] == state["kernel_hits"][0]["code"]
    assert "used as retrieved" in next(e["detail"] for e in state["events"] if e["node"] == "coder")
    # The designer's sketch validated and is kept with the kernel.
    from akg_rag.sketch import check_sketch

    check_sketch(state["best"]["sketch"])
    assert "verified kernel from attempt 1" in state["message"]


def test_no_match_says_so_plainly(seeded_store, embedder, fast_options):
    ctx = Context(store=seeded_store, embedder=embedder, verify_options=fast_options)
    state = generate(str(UNMATCHED_TASK), dsl="cpp", backend="cpu", context=ctx)

    assert state["status"] == "no_match"
    assert state["attempts"] == [] and not state.get("best")
    assert "computes tanh" in state["message"] and "--llm" in state["message"]
    assert "akg-ingest" in state["message"]
    assert [e["node"] for e in state["events"]] == ["retrieve", "designer", "conductor", "coder", "conductor", "finish"]

