"""Pure parts around the verifier: which verified candidate is kept, partial results reaching the
best kernel, the lowering helpers' records and the scoped task scale."""

from __future__ import annotations

import os

from akg_rag.graph.context import Context
from akg_rag.graph.lowering import plan_of, plan_text, summary, task_scale
from akg_rag.graph.routing import decide
from akg_rag.graph.verifier import keep_index


def res(status: str, ms: float | None = None, **extra) -> dict:
    return {"status": status, "timings": None if ms is None else {"candidate_ms": ms}, **extra}


def test_keep_the_fastest_correct_else_the_first():
    assert keep_index([res("correct", 2.0), res("correct", 1.0)]) == 1
    assert keep_index([res("correct", 1.0), res("correct", 1.0)]) == 0        # ties: the coder's own first
    assert keep_index([res("incorrect"), res("correct", 5.0)]) == 1
    assert keep_index([res("correct"), res("correct", 5.0)]) == 1             # measured beats unmeasured
    assert keep_index([res("compile_error"), res("incorrect")]) == 0


def test_a_partial_result_marks_the_best_kernel_partial():
    state = {"task_path": "t.py", "dsl": "cpp", "backend": "cpu", "last_step": "verifier", "phase": "functional",
             "candidate": "code", "candidate_origin": "lowered", "iteration": 1,
             "last_result": res("correct", 1.0, partial=True, partial_ops=["sort"])}
    decision = decide(state, Context(max_opt_passes=0))
    assert decision.updates["best"]["partial"] is True and decision.updates["best"]["partial_ops"] == ["sort"]


def test_plan_and_summary_from_a_lowering_report():
    report = {"kernels": [{"name": "k0", "kind": "pointwise", "sketch": "sketch k0 {\n}\n", "outputs": ["y"],
                           "tunables": {}},
                          {"name": "k1", "kind": "reduction", "sketch": "sketch k1 {\n}", "outputs": ["z"],
                           "tunables": {}}],
              "fallbacks": ["aten.sort.default"], "partial": True}
    plan = plan_of(report)
    assert [(p["name"], p["kind"]) for p in plan] == [("k0", "pointwise"), ("k1", "reduction")]
    assert plan_text(plan) == "sketch k0 {\n}\n\nsketch k1 {\n}\n"  # a blank line between sketches
    assert summary(report) == "2 generated kernel(s): k0 pointwise, k1 reduction; partial: aten.sort.default left to torch"
    assert plan_of(None) == [] and summary(None) == "nothing lowered"


def test_task_scale_is_scoped(monkeypatch):
    monkeypatch.setenv("AKG_TASK_SCALE", "full")
    with task_scale("small"):
        assert os.environ["AKG_TASK_SCALE"] == "small"
    assert os.environ["AKG_TASK_SCALE"] == "full"
    monkeypatch.delenv("AKG_TASK_SCALE")
    with task_scale("small"):
        pass
    assert "AKG_TASK_SCALE" not in os.environ
    with task_scale(None):
        assert "AKG_TASK_SCALE" not in os.environ


def timed(ms: float, low: float, high: float, partial: bool = False, meaningful: bool = True) -> dict:
    """A correct result with a speedup interval [low, high] around eager."""
    t = {"candidate_ms": ms, "speedup_eager": (low + high) / 2, "speedup_eager_low": low,
         "speedup_eager_high": high, "meaningful": meaningful}
    return {"status": "correct", "timings": t, "partial": partial}


def test_a_partial_candidate_must_be_clearly_faster_than_a_full_one():
    full, partial = timed(2.0, 0.45, 0.55), timed(1.0, 0.9, 1.1, partial=True)
    assert keep_index([full, partial]) == 1                                   # intervals apart: library wins
    close = timed(1.9, 0.5, 0.6, partial=True)
    assert keep_index([full, close]) == 0                                     # overlapping: the full kernel
    assert keep_index([timed(2.0, 0.4, 0.5, meaningful=False),
                       timed(1.0, 0.9, 1.1, partial=True, meaningful=False)]) == 0  # interpreter: no evidence
    assert keep_index([res("incorrect"), partial]) == 1                       # no full kernel: the partial one
    assert keep_index([timed(1.5, 0.6, 0.7, partial=True), partial]) == 1     # both partial: the faster
