"""Every branch of the conductor's pure routing decision, on hand-made states."""

from __future__ import annotations

import pytest

from akg_rag.errors import ConfigError
from akg_rag.graph.context import Context
from akg_rag.graph.routing import (
    can_optimize,
    decide,
    format_result_feedback,
    route_after_coder,
    route_from_conductor,
)

CTX = Context(max_iterations=6, max_opt_passes=2, max_designer_rounds=3, max_failures_per_sketch=2,
              max_wall_s=100.0, min_gain=0.05, patience=1)


def timed(ms: float, meaningful: bool = True) -> dict:
    return {"candidate_ms": ms, "eager_ms": 2.0, "speedup_eager": 2.0 / ms, "meaningful": meaningful}


def base(**kw) -> dict:
    state = {"task_path": "t.py", "dsl": "cpp", "backend": "cpu", "iteration": 1, "phase": "functional",
             "designer_rounds": 1, "failures_on_sketch": 0, "opt_pass": 0, "passes_without_gain": 0,
             "candidate": "CODE", "candidate_origin": "llm", "sketch": "SKETCH", "elapsed_s": 1.0}
    state.update(kw)
    return state


def test_wall_clock_budget_finishes_first():
    d = decide(base(last_step="verifier", elapsed_s=100.0, last_result={"status": "compile_error"}), CTX)
    assert d.route == "finish" and "wall-clock budget" in d.reason


def test_valid_sketch_goes_to_coder():
    d = decide(base(last_step="designer", sketch_error=None, failures_on_sketch=1), CTX)
    assert d.route == "coder" and d.updates["failures_on_sketch"] == 0 and d.feedback is None


def test_sketch_error_returns_to_designer_with_position():
    err = {"message": "undeclared name 'z'", "line": 7, "column": 12}
    d = decide(base(last_step="designer", sketch_error=err, designer_rounds=1), CTX)
    assert d.route == "designer"
    assert d.feedback["to"] == "designer" and d.feedback["kind"] == "sketch_error"
    assert "line 7, column 12" in d.feedback["text"] and "undeclared name 'z'" in d.feedback["text"]


def test_sketch_error_with_no_designer_rounds_left_finishes():
    err = {"message": "bad", "line": 1, "column": 1}
    d = decide(base(last_step="designer", sketch_error=err, designer_rounds=3), CTX)
    assert d.route == "finish" and "designer round budget (3)" in d.reason


@pytest.mark.parametrize("outcome", ["no_match", "exhausted"])
def test_coder_without_candidate_to_adapt_finishes(outcome):
    d = decide(base(last_step="coder", coder_outcome=outcome, coder_note="nothing computes softmax"), CTX)
    assert d.route == "finish" and d.reason == "nothing computes softmax"


def test_coder_answer_without_code_goes_back_to_coder():
    d = decide(base(last_step="coder", coder_outcome="no_code", coder_note="no block"), CTX)
    assert d.route == "coder" and d.feedback["kind"] == "no_code" and d.feedback["text"] == "no block"


def test_coder_without_code_at_iteration_budget_finishes():
    d = decide(base(last_step="coder", coder_outcome="no_code", iteration=6), CTX)
    assert d.route == "finish" and "iteration budget (6)" in d.reason


def test_compile_error_reaches_coder_with_excerpt():
    result = {"status": "compile_error", "feedback": "error: expected ';' before '}' token"}
    d = decide(base(last_step="verifier", last_result=result), CTX)
    assert d.route == "coder" and d.feedback["kind"] == "compile_error"
    assert "expected ';' before '}' token" in d.feedback["text"]
    assert d.updates["failures_on_sketch"] == 1


def test_mismatch_reaches_coder():
    result = {"status": "incorrect", "feedback": "output differs",
              "mismatch": {"max_abs_diff": 0.5, "index": "(0, 3)", "trial": 0}}
    d = decide(base(last_step="verifier", last_result=result), CTX)
    assert d.route == "coder" and d.feedback["kind"] == "incorrect"
    assert "max_abs_diff=0.5" in d.feedback["text"] and "output differs" in d.feedback["text"]


def test_repeated_failures_on_one_sketch_go_to_designer():
    result = {"status": "incorrect", "feedback": "wrong"}
    d = decide(base(last_step="verifier", last_result=result, failures_on_sketch=1), CTX)
    assert d.route == "designer" and d.feedback["kind"] == "redesign"
    assert d.updates["failures_on_sketch"] == 0 and "wrong" in d.feedback["text"]


def test_repeated_failures_without_designer_rounds_stay_with_coder():
    result = {"status": "incorrect", "feedback": "wrong"}
    d = decide(base(last_step="verifier", last_result=result, failures_on_sketch=1, designer_rounds=3), CTX)
    assert d.route == "coder"


def test_deterministic_failures_never_redesign():
    result = {"status": "incorrect", "feedback": "wrong"}
    d = decide(base(last_step="verifier", last_result=result, failures_on_sketch=5,
                    candidate_origin="kernel:cpp:cpu:softmax:abc:def"), CTX)
    assert d.route == "coder"


def test_failure_at_iteration_budget_finishes_and_says_so():
    d = decide(base(last_step="verifier", last_result={"status": "runtime_error"}, iteration=6), CTX)
    assert d.route == "finish" and "iteration budget (6) used" in d.reason


def test_first_correct_kernel_becomes_best_and_goes_to_analyst():
    d = decide(base(last_step="verifier", last_result={"status": "correct", "timings": timed(1.0)}), CTX)
    assert d.route == "analyst"
    assert d.updates["best"]["code"] == "CODE" and d.updates["best"]["iteration"] == 1
    assert d.updates["phase"] == "optimize"


def test_correct_without_opt_passes_finishes():
    ctx = Context(max_opt_passes=0)
    d = decide(base(last_step="verifier", last_result={"status": "correct", "timings": timed(1.0)}), ctx)
    assert d.route == "finish" and "optimisation stopped" in d.reason and "best" in d.updates


def test_correct_with_meaningless_timings_finishes():
    d = decide(base(last_step="verifier", last_result={"status": "correct", "timings": timed(1.0, False)}), CTX)
    assert d.route == "finish" and "not meaningful" in d.reason


def test_faster_variant_replaces_best_and_counts_as_gain():
    best = {"code": "OLD", "timings": timed(1.0), "iteration": 1}
    s = base(last_step="verifier", phase="optimize", opt_pass=1, best=best, candidate="NEW", iteration=2,
             last_result={"status": "correct", "timings": timed(0.5)})
    d = decide(s, CTX)
    assert d.updates["best"]["code"] == "NEW" and d.updates["passes_without_gain"] == 0
    assert d.route == "analyst"


def test_slower_variant_keeps_best_and_stops_after_patience():
    best = {"code": "OLD", "timings": timed(1.0), "iteration": 1}
    s = base(last_step="verifier", phase="optimize", opt_pass=1, best=best, candidate="NEW", iteration=2,
             last_result={"status": "correct", "timings": timed(1.5)})
    d = decide(s, CTX)
    assert "best" not in d.updates and d.updates["passes_without_gain"] == 1
    assert d.route == "finish" and "no gain" in d.reason


def test_small_gain_replaces_best_but_counts_as_no_gain():
    best = {"code": "OLD", "timings": timed(1.0), "iteration": 1}
    s = base(last_step="verifier", phase="optimize", opt_pass=1, best=best, candidate="NEW", iteration=2,
             last_result={"status": "correct", "timings": timed(0.98)})
    d = decide(s, CTX)
    assert d.updates["best"]["code"] == "NEW" and d.updates["passes_without_gain"] == 1


def test_opt_pass_budget_stops_optimisation():
    best = {"code": "OLD", "timings": timed(1.0), "iteration": 1}
    s = base(last_step="verifier", phase="optimize", opt_pass=2, best=best, iteration=3,
             last_result={"status": "correct", "timings": timed(0.5)})
    d = decide(s, CTX)
    assert d.route == "finish" and "pass budget (2)" in d.reason


def test_failed_llm_variant_is_fixed_once_then_dropped():
    best = {"code": "OLD", "timings": timed(1.0), "iteration": 1}
    s = base(last_step="verifier", phase="optimize", opt_pass=1, best=best, iteration=2,
             last_result={"status": "compile_error", "feedback": "boom"})
    first = decide(s, CTX)
    assert first.route == "coder" and "boom" in first.feedback["text"]
    second = decide({**s, **first.updates, "iteration": 3}, CTX)
    assert second.route == "finish" and second.updates["passes_without_gain"] == 1


def test_failed_mutation_is_dropped_for_the_next_pass():
    ctx = Context(max_opt_passes=3, patience=2)
    best = {"code": "OLD", "timings": timed(1.0), "iteration": 1}
    s = base(last_step="verifier", phase="optimize", opt_pass=1, best=best, iteration=2,
             candidate_origin="mutation:BLOCK=64", last_result={"status": "timeout"})
    d = decide(s, ctx)
    assert d.route == "analyst" and d.updates["failures_on_sketch"] == 0


def test_can_optimize_reasons():
    assert can_optimize(base(), CTX) == (False, "no verified kernel to optimise")
    ok, why = can_optimize(base(best={"timings": timed(1.0)}, iteration=6), CTX)
    assert not ok and "iteration budget" in why
    assert can_optimize(base(best={"timings": timed(1.0)}), CTX) == (True, "")


def test_feedback_is_truncated():
    text = format_result_feedback({"status": "compile_error", "feedback": "x" * 10000})
    assert len(text) < 3200 and text.endswith("(truncated)")


def test_edge_functions():
    assert route_from_conductor({"route": "designer"}) == "designer"
    assert route_from_conductor({}) == "finish"
    assert route_after_coder({"coder_outcome": "code"}) == "verifier"
    assert route_after_coder({"coder_outcome": "no_code"}) == "conductor"


def test_context_rejects_bad_budgets_and_bounds_recursion():
    with pytest.raises(ConfigError, match="max_iterations"):
        Context(max_iterations=0)
    with pytest.raises(ConfigError, match="scale"):
        Context(scale="huge")
    small, large = Context(max_iterations=2), Context(max_iterations=20)
    assert large.recursion_limit() > small.recursion_limit() > 4 * 2


def interval(est: float, low: float, high: float) -> dict:
    return {"candidate_ms": 1.0 / est, "eager_ms": 1.0, "speedup_eager": est, "speedup_eager_low": low,
            "speedup_eager_high": high, "meaningful": True}


def test_a_variant_inside_the_best_interval_neither_replaces_it_nor_counts_as_a_gain():
    best = {"code": "OLD", "timings": interval(1.50, 1.40, 1.60), "iteration": 1}
    # a higher median, but the intervals overlap: no measurable difference
    d = decide(base(last_step="verifier", phase="optimize", best=best, opt_pass=1, iteration=2,
                    last_result={"status": "correct", "timings": interval(1.58, 1.45, 1.70)}), CTX)
    assert "best" not in d.updates
    assert d.updates["passes_without_gain"] == 1


def test_a_variant_whose_interval_clears_the_best_replaces_it():
    best = {"code": "OLD", "timings": interval(1.50, 1.40, 1.60), "iteration": 1}
    d = decide(base(last_step="verifier", phase="optimize", best=best, opt_pass=1, iteration=2,
                    last_result={"status": "correct", "timings": interval(2.0, 1.90, 2.10)}), CTX)
    assert d.updates["best"]["code"] == "CODE"
    assert d.updates["passes_without_gain"] == 0


def test_a_failed_lowered_design_goes_back_to_the_designer():
    lowered_design = dict(implement="lower", candidate_origin="designed", revisions={"k0": "S"})
    result = {"status": "incorrect", "feedback": "max abs diff 0.5"}
    d = decide(base(last_step="verifier", last_result=result, **lowered_design), CTX)
    assert d.route == "designer" and d.feedback["kind"] == "incorrect"
    assert "lowered from your sketches for k0" in d.feedback["text"] and "max abs diff 0.5" in d.feedback["text"]
    # No round left: the emitted plan once, then the coder model writes code.
    d = decide(base(last_step="verifier", last_result=result, designer_rounds=3, **lowered_design), CTX)
    assert d.route == "coder" and d.updates["revisions"] == {} and d.feedback is None
    d = decide(base(last_step="verifier", last_result=result, designer_rounds=3, lowered=True,
                    **{**lowered_design, "candidate_origin": "lowered", "revisions": {}}), CTX)
    assert d.route == "coder" and d.updates["implement"] == "code" and d.feedback["to"] == "coder"


def test_a_revision_error_with_no_round_left_lowers_the_plan_as_it_stands():
    err = {"message": "the sketch for k0: undeclared name 'q'", "line": 3, "column": 4, "kernels": ["k0"]}
    plan = [{"name": "k0", "kind": "reduction", "sketch": "sketch k0 {\n}\n", "outputs": ["y"], "revised": False}]
    d = decide(base(last_step="designer", sketch_error=err, designer_rounds=3, plan=plan), CTX)
    assert d.route == "coder" and d.updates["implement"] == "lower" and d.updates["sketch"] == "sketch k0 {\n}\n"
    d = decide(base(last_step="designer", sketch_error=err, designer_rounds=1, plan=plan), CTX)
    assert d.route == "designer" and "did not validate or lower" in d.feedback["text"]
