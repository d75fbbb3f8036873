"""The run's outcome in words, kernels slower than eager ranked below faster ones, and the finish
node's write-back: partial candidates are reported, never stored as full kernels."""

from __future__ import annotations

from types import SimpleNamespace

from akg_rag.graph.context import Context
from akg_rag.graph.finish import finish, outcome, slower_than
from akg_rag.graph.retrieve import rank_slow_last


def timings(est, low, high, **extra):
    return {"candidate_ms": 0.68, "candidate_iqr_ms": 0.04, "speedup_eager": est, "speedup_eager_low": low,
            "speedup_eager_high": high, "meaningful": True, **extra}


def test_a_kernel_slower_than_eager_is_called_slower_in_the_final_line():
    status, message = outcome({"best": {"iteration": 2, "timings": timings(0.45, 0.41, 0.49)},
                               "message": "optimisation stopped"})
    assert status == "verified"
    assert "SLOWER than PyTorch eager" in message and "0.45x vs eager [0.41-0.49]" in message


def test_the_final_line_says_what_the_speedup_was_timed_on():
    _, message = outcome({"best": {"iteration": 1, "timings": timings(0.45, 0.41, 0.49, device="cpu (x86_64, 1 thread)")},
                          "message": "m"})
    assert "0.45x vs eager [0.41-0.49] (slower), timed on cpu (x86_64, 1 thread)" in message


def test_an_interval_straddling_one_is_no_measurable_difference_not_a_number():
    _, message = outcome({"best": {"iteration": 1, "timings": timings(1.04, 0.97, 1.10)}, "message": "m"})
    assert "no measurable difference vs eager" in message
    assert "1.04x" not in message and "SLOWER" not in message


def test_slower_than_torch_compile_is_said_too():
    t = timings(1.8, 1.7, 1.9, speedup_compile=0.7, speedup_compile_low=0.6, speedup_compile_high=0.8)
    assert slower_than(t) == ["torch.compile"]
    _, message = outcome({"best": {"iteration": 1, "timings": t}, "message": "m"})
    assert "SLOWER than torch.compile" in message and "1.8x vs eager" in message


def test_interpreter_timings_claim_nothing():
    t = {"candidate_ms": 9.0, "speedup_eager": 0.01, "meaningful": False}
    assert slower_than(t) == []
    _, message = outcome({"best": {"iteration": 1, "timings": t}, "message": "m"})
    assert "not meaningful" in message and "SLOWER" not in message


def test_kernels_slower_than_eager_go_after_faster_ones():
    hits = [{"id": "slow", "speedup_eager": 0.45}, {"id": "unknown", "speedup_eager": None},
            {"id": "fast", "speedup_eager": 1.7}]
    assert [h["id"] for h in rank_slow_last(hits)] == ["unknown", "fast", "slow"]


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
