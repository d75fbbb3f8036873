"""The judge's side of interleaved timing: eager here, the candidate's blocks over a channel.

The candidate process is played by an ``ask`` function that times a real local callable (so the
judge's wall clock and the claims agree), or lies about it; the full two-process path runs in
tests/verify/test_cpp.py and test_runtime.py.
"""

from __future__ import annotations

import random
import time

import pytest
import torch

from akg_rag.verify import paired, timing
from akg_rag.verify.channel import ProtocolError
from akg_rag.verify.timing import MIN_BLOCKS, Runs
from akg_rag.verify.wallclock import Claim, check, check_blocks

CPU = torch.device("cpu")


def busy(ms: float):
    """A callable that keeps the CPU busy for about ``ms`` milliseconds (sleep would not load it)."""
    def call():
        end = time.perf_counter() + ms / 1e3
        while time.perf_counter() < end:
            pass
    return call


class FakeCandidate:
    """Answers ``time_block`` by timing ``fn`` locally; ``scale`` < 1 under-reports the times."""

    def __init__(self, fn, scale: float = 1.0) -> None:
        self.runs = Runs(fn, CPU)
        self.scale = scale
        self.ops: list[str] = []

    def __call__(self, msg, expect):
        self.ops.append(msg["op"])
        assert msg["op"] == "time_block" and expect == "block"
        return {"op": "block", "times_ms": [t * self.scale for t in self.runs(msg["n"])]}


def test_a_faster_candidate_in_another_process_is_called_faster():
    cand = FakeCandidate(busy(0.5))
    p = paired.time_pair(busy(1.5), cand, CPU, warmup=1, runs=24, budget_s=1.0, lock_path=None,
                         interpreted=False)
    assert p.mismatch is None, p.mismatch
    sp = p.comparison.speedup
    assert sp.verdict == "faster" and sp.low <= sp.estimate <= sp.high and sp.blocks >= MIN_BLOCKS
    # one wall-clocked window per candidate block, plus the two calls before the blocks
    assert len(p.windows) == sp.blocks + 1 == len(cand.ops)
    fields = paired.timing_fields(p, eager_isolated=None, compiled=None)
    assert fields["verdict_eager"] == "faster" and fields["method"] == "perf_counter"
    assert fields["eager_iqr_ms"] is not None and fields["candidate_iqr_ms"] is not None


def test_a_load_step_hits_both_processes_alike(monkeypatch):
    """Equal work on both sides, load 20x after 0.15 s (simulated clock, as in test_timing): timed
    one after the other the second would look 20x slower; interleaved, no difference is claimed."""
    rng = random.Random(0)
    now = [0]

    def fn():
        load = 1.0 if now[0] < 0.15e9 else 20.0
        now[0] += int(1e6 * load * rng.uniform(0.95, 1.05))  # 1 ms of work, scaled by the load

    monkeypatch.setattr(timing, "_perf_ns", lambda: now[0])
    monkeypatch.setattr(timing, "_monotonic", lambda: now[0] / 1e9)
    p = paired.time_pair(fn, FakeCandidate(fn), CPU, warmup=0, runs=200, budget_s=1.0, lock_path=None,
                         interpreted=False)
    sp = p.comparison.speedup
    assert sp.verdict == "no measurable difference" and 0.9 < sp.estimate < 1.1, sp


def test_under_reported_block_times_are_a_timing_mismatch():
    # 20 blocks of 5 runs, each block 200 ms on the judge's clock, claiming 1 ms per run: at most
    # 20 x 5 x (3 x 1 + 0.2) ms + 2 s = 2.32 s explained, 4 s observed
    assert "under-report" in check_blocks([(0.2, Claim(1.0, 5, 0, extra=0))] * 20, gpu=False)
    # the same windows honestly reported (40 ms per run) pass
    assert check_blocks([(0.2, Claim(40.0, 5, 0, extra=0))] * 20, gpu=False) is None


def test_load_drifting_between_blocks_is_explained_block_by_block():
    # ten quiet blocks of 50 runs (1 ms each) and ten under 20x load (20 ms each), all honest: the
    # quiet median for all 1000 runs could not explain the 10.5 s; each block's own median does
    windows = [(0.05, Claim(1.0, 50, 0, extra=0))] * 10 + [(1.0, Claim(20.0, 50, 0, extra=0))] * 10
    assert check_blocks(windows, gpu=False) is None
    assert check(Claim(1.0, 1000, 0), sum(w for w, _ in windows), gpu=False) is not None


def test_a_block_claiming_more_time_than_its_window_is_a_timing_mismatch():
    problem = check_blocks([(0.01, Claim(1.0, 5, 0, extra=0)), (0.01, Claim(100.0, 5, 0, extra=0))], gpu=False)
    assert problem and "took" in problem


def test_many_blocks_are_bounded_no_looser_than_one_window_of_all_their_runs():
    blocks = [(0.1, Claim(1.0, 5, 0, extra=0))] * 20           # 2 s observed over 100 runs
    one = [(2.0, Claim(1.0, 100, 0, extra=0))]
    assert check_blocks(blocks, gpu=False) is None and check_blocks(one, gpu=False) is None
    slower = [(0.12, Claim(1.0, 5, 0, extra=0))] * 20          # 2.4 s: 100 x 3.2 ms + 2 s = 2.32 s
    assert check_blocks(slower, gpu=False) is not None
    assert check_blocks([(2.4, Claim(1.0, 100, 0, extra=0))], gpu=False) is not None


def test_one_window_keeps_the_single_command_bound():
    claim = Claim(1.0, 100, 2)
    assert check(claim, 0.1, gpu=False) is None
    # (2 + 100 + 2) calls x (3 x 1 ms + 0.2 ms) + 2 s = 2332.8 ms
    assert check(claim, 2.33, gpu=False) is None and check(claim, 2.34, gpu=False) is not None


def test_malformed_block_answers_are_protocol_errors():
    for bad in ([1.0], [1.0, float("nan")], [1.0, -1.0], "fast", [True, 1.0]):
        remote = paired.RemoteRuns(lambda msg, expect, bad=bad: {"op": "block", "times_ms": bad}, [])
        with pytest.raises(ProtocolError):
            remote(2)


def test_the_interpreter_times_the_candidate_only():
    cand = FakeCandidate(busy(0.2))
    p = paired.time_pair(None, cand, CPU, warmup=None, runs=None, budget_s=1.0, lock_path=None, interpreted=True)
    assert p.comparison is None and p.candidate.runs == 3 and cand.ops == ["time_block"]
    assert paired.timing_fields(p, None, None) == {"method": "perf_counter", "queued": False,
                                                   "candidate_iqr_ms": p.candidate.spread_ms}


def test_torch_compile_is_interleaved_with_the_candidate_too():
    """A second series of blocks: compile against the candidate, with its own interval."""
    cand = FakeCandidate(busy(0.5))
    isolated = timing.summarize([9.0] * 5, 0, "perf_counter")   # a stale figure from before the candidate
    p = paired.time_pair(busy(1.5), cand, CPU, warmup=1, runs=24, budget_s=1.0, lock_path=None,
                         interpreted=False, compiled=busy(0.25))
    assert p.mismatch is None, p.mismatch
    # (verdicts depend on the machine's load; the structure does not)
    assert p.compiled is not None and p.compiled.speedup.blocks >= MIN_BLOCKS
    assert len(cand.ops) > p.comparison.speedup.blocks + p.compiled.speedup.blocks
    f = paired.timing_fields(p, eager_isolated=None, compiled=isolated)
    assert f["compile_method"] == "interleaved" and f["compile_isolated_ms"] == 9.0
    assert f["speedup_compile_low"] <= f["speedup_compile"] <= f["speedup_compile_high"]
    assert f["compile_ms"] == p.compiled.baseline.median_ms < 9.0   # the interleaved median, not the stale 9 ms


def test_a_compiled_baseline_that_fails_at_timing_keeps_the_isolated_figure():
    def broken():
        raise RuntimeError("recompile failed")
    cand = FakeCandidate(busy(0.5))
    isolated = timing.summarize([0.25] * 7, 0, "perf_counter")
    p = paired.time_pair(busy(1.5), cand, CPU, warmup=1, runs=24, budget_s=1.0, lock_path=None,
                         interpreted=False, compiled=broken)
    assert p.compiled is None and p.comparison is not None
    f = paired.timing_fields(p, eager_isolated=None, compiled=isolated)
    assert f["compile_method"] == "isolated" and "speedup_compile_low" in f
