"""Run-time verdicts on real children: every status and every run-time guard, on the Triton interpreter."""

from __future__ import annotations

import pytest


def test_correct_triton_candidate_passes(batch):
    r = batch["triton_correct"]
    assert r.status == "correct", r.feedback + r.log
    assert r.ok and not r.guard_violations and not r.partial
    t = r.timings
    assert t is not None and t.meaningful is False          # interpreter: correctness only
    assert t.candidate_ms > 0 and t.eager_ms > 0
    assert t.compile_status == "disabled"
    assert r.review is False                                 # no review on meaningless timings
    # the fresh-input check's first call on new values, timed alone, agrees with the timed median
    assert t.first_call_ms is not None and 0 < t.first_call_ms <= 2 * t.candidate_ms + 5


def test_a_kernel_that_copies_on_these_inputs_is_work_when_torch_computes_nothing(batch):
    """relu of torch.rand data is a bitwise copy: with no torch compute in the forward, the launch
    is the whole computation, not decoration (no_work is for copies beside torch's work)."""
    r = batch["triton_relu_nonneg"]
    assert r.status == "correct", r.feedback + r.log
    assert not r.guard_violations and not r.partial


def test_incorrect_candidate_reports_first_mismatch_and_ignores_stdout(batch):
    r = batch["triton_incorrect"]
    assert r.status == "incorrect"
    m = r.mismatch
    assert m["reason"] == "values" and m["trial"] == 0 and m["input_set"] == 0
    assert m["expected"] == 0.0 and m["actual"] < 0              # the missing ReLU
    assert m["max_abs_err"] > 0.1 and m["mismatched"] < m["numel"]
    assert "first at index" in r.feedback
    assert '"status": "correct"' in r.log                      # it printed a fake verdict; ignored


def test_a_real_kernel_of_a_constant_function_beside_torch_compute_is_not_no_work(batch):
    """The reference output is all zeros: the kernel (after torch's multiply) writes zeros where
    zeros may already be, which the launch classifier cannot tell from a fill; the ablation still
    shows the kernel works, so the partial candidate is correct."""
    r = batch["triton_constant"]
    assert r.status == "correct", r.feedback + r.log
    assert r.partial and not r.guard_violations


def test_a_buffer_holding_an_earlier_calls_output_does_not_make_a_launch_look_unwritten(batch):
    """The classified forward draws inputs no earlier call drew, so a kernel that writes into a
    buffer still holding a previous result (an allocator's reuse; here two alternating buffers)
    is seen writing: no ``no_work`` beside torch's multiply (it was, when the classified forward
    repeated the first trial's inputs)."""
    r = batch["triton_two_buffers"]
    assert r.status == "correct", r.feedback + r.log
    assert r.partial and not r.guard_violations


def test_a_stateful_task_compares_calls_made_from_the_same_state(batch):
    """The output reads a call counter forward bumps: the judge calls the candidate more often
    than the reference (timing, attribution), so each checked forward starts both from the state
    they were built with; without that, this correct candidate failed after timing."""
    r = batch["triton_stateful"]
    assert r.status == "correct", r.feedback + r.log
    assert not r.guard_violations


def test_dynamic_shapes_every_input_set_must_pass(batch):
    assert batch["triton_correct@dyn"].status == "correct"
    assert "2 input set(s)" in batch["triton_correct@dyn"].feedback
    r = batch["triton_tail_bug"]
    assert r.status == "incorrect"
    assert r.mismatch["input_set"] == 1                       # 64 rows pass, 37 rows lose their tail


def test_runtime_error_names_the_candidate_line(batch):
    r = batch["triton_runtime_error"]
    assert r.status == "runtime_error"
    assert "TypeError" in r.feedback and "candidate line" in r.feedback


def test_hang_is_a_timeout(batch):
    r = batch["triton_hang"]
    assert r.status == "timeout"
    assert "25 s" in r.feedback


def test_abort_and_segfault_are_crashes(batch):
    assert batch["triton_abort"].status == "crashed"
    assert "aborted" in batch["triton_abort"].feedback
    assert batch["rt_segfault"].status == "crashed"
    assert "segmentation fault" in batch["rt_segfault"].feedback


def test_unbounded_allocation_is_stopped_by_the_memory_cap(batch):
    r = batch["triton_memory_hog"]
    assert r.status == "runtime_error"
    assert "out of memory" in r.feedback and "3072 MB" in r.feedback


@pytest.mark.parametrize("name, guard", [
    ("triton_dead_branch", "no_kernel"),
    ("cpp_never_built", "no_kernel"),
    ("triton_decorative", "torch_fallback"),
    ("triton_same_buffer", "cached_output"),
    ("triton_memo", "cached_output"),
    ("triton_memo_address", "cached_output"),   # a copy of an answer kept by input address
    ("triton_memo_sampled", "cached_output"),   # answers kept by sampled values: new ones compute
    ("triton_deferred", "foreign_output"),      # a tensor subclass that computes when read
    ("triton_timed_mode", "cached_output"),     # does nothing when Triton's launcher is not counted
    ("triton_inplace", "inputs_modified"),
    ("rt_thread", "spawn"),
    ("rt_fork", "spawn"),
    ("rt_getframe", "introspection"),
    ("rt_gc", "introspection"),
    ("rt_timer", "patched_timer"),
    ("rt_allclose", "monkeypatch"),
    ("rt_os_exit", "early_exit"),
    ("rt_sys_exit", "early_exit"),
    ("rt_posix_exit", "early_exit"),
    ("rt_forge", "file_access"),   # writing a verdict file is refused before any forgery
    ("rt_procfs", "file_access"),  # io.open of /proc/<pid>/environ, the path built at run time
    ("rt_write_outside", "file_access"),
    ("triton_identity", "no_work"),
    ("triton_decorative_aten", "torch_fallback"),
])
def test_runtime_guard(batch, name, guard):
    r = batch[name]
    assert r.status == "guard_violation", r.feedback + r.log
    assert guard in r.violation_names()
    assert guard in r.feedback


def test_answers_kept_by_sampled_values_are_caught_by_the_first_call_on_new_values(batch):
    """Every output it gives is right (new values miss its store and are computed), so the
    fresh-input comparison passes; the timed calls repeat one input set and only copy. The first
    call on new values, timed as a timed run, is far slower than the timed median, on every set."""
    r = batch["triton_memo_sampled"]
    assert r.status == "guard_violation", r.feedback + r.log
    detail = [v["detail"] for v in r.guard_violations if v["name"] == "cached_output"]
    assert detail and "first call on new values" in detail[0], detail
    times = detail[0].split("new values ")[1].split(" ms")[0].split(", ")
    assert len(times) == 3, detail[0]                                  # three fresh sets, all slow (CPU)
    assert "wrong on fresh inputs" not in r.feedback


def test_frame_walk_cannot_forge_a_verdict(batch):
    """Escape (a): the frames reached through getattr hold no key and no sealer; the forged message on
    the judge's channel is a protocol violation, and the identity forward never counts as correct."""
    r = batch["rt_frame_walk"]
    assert r.status == "guard_violation", r.feedback + r.log
    assert set(r.violation_names()) & {"forged_result", "early_exit"}
    assert r.timings is None


def test_violations_carry_no_timings_and_results_record_isolation(batch):
    for name in ("triton_identity", "triton_decorative_aten", "rt_procfs", "triton_memo"):
        assert batch[name].timings is None, name
    assert batch["triton_correct"].isolation
    assert all(r.isolation == batch["triton_correct"].isolation for r in batch.values())


def test_guard_details_say_what_happened(batch):
    assert "trial 1" in batch["triton_same_buffer"].guard_violations[0]["detail"]
    assert "consecutive timed calls" in batch["triton_memo"].guard_violations[0]["detail"]
    details = " ".join(v["detail"] for v in batch["rt_allclose"].guard_violations)
    assert "torch.allclose" in details and "torch.Tensor.__sub__" in details
    assert batch["rt_timer"].guard_violations[0]["detail"] == "time.perf_counter_ns was replaced"


def test_partial_replacement_is_allowed_and_reported(batch):
    r = batch["triton_partial"]
    assert r.status == "correct", r.feedback
    assert r.partial is True and r.partial_ops == ["mul"]
    assert batch["triton_decorative"].partial_ops == ["mul", "relu"]


def test_results_survive_the_json_boundary(batch):
    from akg_rag.verify.result import VerifyResult

    for r in batch.values():
        assert VerifyResult.from_dict(r.to_dict()) == r
