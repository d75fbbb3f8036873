"""Timing: median intervals, interleaved comparison under drifting load, verdicts, the CPU clock.

Most tests drive :func:`akg_rag.verify.timing.compare` with a simulated clock (the module's captured
``_perf_ns`` and ``_monotonic`` replaced for the test) so a load pattern is exactly reproducible;
one test times two real functions on the real clock.
"""

from __future__ import annotations

import random
import statistics

import pytest
import torch

from akg_rag.verify import timing
from akg_rag.verify.timing import Interval, compare, measure, median_interval, ratio_interval

CPU = torch.device("cpu")


# --- statistics --------------------------------------------------------------------------------

def test_median_interval_uses_order_statistics_with_the_stated_confidence():
    xs = list(range(1, 21))  # n = 20: the 95 % interval of the median is [x(6), x(15)]
    low, high, conf = median_interval([float(x) for x in reversed(xs)])
    assert (low, high) == (6.0, 15.0)
    assert 0.95 <= conf < 0.99


def test_median_interval_below_six_values_cannot_reach_95_percent():
    low, high, conf = median_interval([3.0, 1.0, 2.0, 5.0, 4.0])
    assert (low, high) == (1.0, 5.0)
    assert conf == pytest.approx(1 - 2 / 32)


def test_median_interval_covers_the_true_median_about_as_often_as_it_says():
    rng = random.Random(7)
    hits = 0
    for _ in range(2000):
        low, high, _ = median_interval([rng.lognormvariate(0.0, 0.5) for _ in range(12)])
        hits += low <= 1.0 <= high  # median of lognormal(0, s) is 1
    assert hits / 2000 >= 0.95


def test_interval_verdicts():
    assert Interval(1.5, 1.2, 1.8, 0.95, 10).verdict == "faster"
    assert Interval(0.5, 0.4, 0.6, 0.95, 10).verdict == "slower"
    assert Interval(1.1, 0.9, 1.3, 0.95, 10).verdict == "no measurable difference"


def test_ratio_interval_of_separate_measurements_is_conservative():
    a = timing.summarize([2.0, 2.1, 1.9, 2.0, 2.2, 1.8, 2.0, 2.05], 0, "perf_counter")
    b = timing.summarize([1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.0], 0, "perf_counter")
    r = ratio_interval(a, b)
    assert r is not None and r.low <= 2.0 <= r.high and r.low > 1.0
    assert r.confidence == pytest.approx(0.90)


# --- interleaving under a simulated clock ------------------------------------------------------

class Clock:
    """A fake clock: each simulated call advances time by cost x load(now) x jitter."""

    def __init__(self, load, seed: int = 0) -> None:
        self.now_ns = 0
        self.load = load
        self.rng = random.Random(seed)

    def perf_ns(self) -> int:
        return self.now_ns

    def monotonic(self) -> float:
        return self.now_ns / 1e9

    def fn(self, cost_ms: float):
        def call():
            jitter = self.rng.uniform(0.95, 1.05)
            self.now_ns += int(cost_ms * 1e6 * self.load(self.now_ns / 1e9) * jitter)
            return None
        return call


@pytest.fixture
def clock(monkeypatch):
    def make(load, seed=0):
        c = Clock(load, seed)
        monkeypatch.setattr(timing, "_perf_ns", c.perf_ns)
        monkeypatch.setattr(timing, "_monotonic", c.monotonic)
        return c
    return make


def test_equal_functions_under_a_load_step_show_no_measurable_difference(clock):
    # Load jumps 20x after 0.15 s (another job starts): timed one after the other, the function
    # measured second would look 20x slower.
    c = clock(lambda t: 1.0 if t < 0.15 else 20.0)
    base, cand = c.fn(1.0), c.fn(1.0)
    alone_base = measure(base, CPU, warmup=0, runs=100)
    alone_cand = measure(cand, CPU, warmup=0, runs=100)
    assert alone_cand.median_ms / alone_base.median_ms > 5  # the trap sequential timing falls into
    result = compare(base, cand, CPU, warmup=0, runs=200)
    assert result.speedup.verdict == "no measurable difference"
    assert 0.9 < result.speedup.estimate < 1.1
    assert result.speedup.blocks >= timing.MIN_BLOCKS and result.speedup.confidence >= 0.95


def test_a_real_speedup_survives_drifting_load(clock):
    c = clock(lambda t: 1.0 + 3.0 * t)  # load rising steadily
    result = compare(c.fn(3.0), c.fn(1.0), CPU, warmup=0, runs=120)
    assert result.speedup.verdict == "faster"
    assert result.speedup.low > 2.5 and result.speedup.high < 3.5


def test_a_slower_candidate_is_called_slower(clock):
    c = clock(lambda t: 1.0)
    result = compare(c.fn(1.0), c.fn(2.0), CPU, warmup=0, runs=60)
    assert result.speedup.verdict == "slower"
    assert result.speedup.high < 1.0


def test_the_budget_decides_how_many_blocks_without_runs(clock):
    c = clock(lambda t: 1.0)
    result = compare(c.fn(1.0), c.fn(1.0), CPU, warmup=0, budget_s=0.5)
    total_ms = (result.baseline.median_ms * result.baseline.runs + result.candidate.median_ms * result.candidate.runs)
    assert result.speedup.blocks >= timing.MIN_BLOCKS
    # stops once the budget is spent (or earlier once the interval is narrow), never far beyond it
    assert total_ms < 0.5e3 * 1.3


def test_measurements_report_their_spread():
    m = timing.summarize([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 0, "perf_counter")
    assert m.median_ms == 5.0 and m.spread_ms == pytest.approx(4.0) and m.method == "perf_counter"


# --- the real clock ----------------------------------------------------------------------------

def test_real_clock_tells_a_four_times_slower_function_apart():
    # calls of ~0.1 ms and up and a one-second budget: enough blocks that a busy machine (another
    # build on the same two cores) still separates them
    x = torch.randn(512, 512)

    def fast():
        return x + 1.0

    def slow():
        y = x
        for _ in range(4):
            y = y + 1.0
        return y

    result = compare(slow, fast, CPU, warmup=2, budget_s=1.0)
    assert result.speedup.verdict == "faster", result.speedup
    assert result.candidate.method == "perf_counter"
    assert result.candidate.q1_ms <= result.candidate.median_ms <= result.candidate.q3_ms
    assert not result.reused_output and result.graph is None


def test_real_clock_flags_a_candidate_returning_one_buffer():
    x = torch.randn(64)
    out = torch.empty(64)

    def reuse():
        return torch.add(x, 1.0, out=out)

    result = compare(lambda: x + 1.0, reuse, CPU, warmup=1, runs=6)
    assert result.reused_output


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_short_gpu_calls_are_also_timed_as_graph_replays():
    dev = torch.device("cuda")
    x = torch.randn(1024, device=dev)
    result = compare(lambda: x * 2.0, lambda: x + 1.0, dev, budget_s=0.5)
    assert result.candidate.method == "cuda_event"
    assert result.graph is not None, result.graph_error
    assert result.graph.candidate.method == "cuda_graph"
    assert statistics.median([result.graph.candidate.median_ms]) > 0


def test_launch_counters_are_unhooked_inside_the_timed_loop_and_back_after():
    import types

    from akg_rag.verify.hooks import Hooks

    hooks = Hooks("cpp", "cpu")
    ext = types.ModuleType("fake_ext")
    original = lambda t: t + 1  # noqa: E731 - stands in for an extension function
    counted = hooks._counted(original)
    ext.forward = counted
    hooks._counters.append((ext, "forward", original, counted))
    ext.forward(torch.zeros(1))
    assert hooks.launches == 1
    with hooks.counters_paused():
        assert ext.forward is original
        ext.forward(torch.zeros(1))
    assert hooks.launches == 1 and ext.forward is counted


class Recorded:
    """A block timer of fixed run times that records how many runs each call asked for; in its
    ``slow_call``-th call (0-based) the second run takes ``slow_ms``, as if preempted."""

    def __init__(self, ms: float, slow_call: int = -1, slow_ms: float = 0.0) -> None:
        self.ms, self.slow_call, self.slow_ms = ms, slow_call, slow_ms
        self.asked: list[int] = []

    def __call__(self, n: int) -> list[float]:
        times = [self.ms] * n
        if len(self.asked) == self.slow_call and n > 1:
            times[1] = self.slow_ms
        self.asked.append(n)
        return times


def test_one_slow_pilot_run_does_not_shrink_the_blocks():
    plain_a, plain_b = Recorded(0.25), Recorded(0.5)
    timing.interleave(plain_a, plain_b, None, 2.0, 0, "cuda_event")
    # one pilot run (the first call holds warm-up and pilot) of one side ran 50x slower
    hit_a, hit_b = Recorded(0.25), Recorded(0.5, slow_call=0, slow_ms=25.0)
    timing.interleave(hit_a, hit_b, None, 2.0, 0, "cuda_event")
    assert hit_a.asked[0] == 1 + timing.PILOT_RUNS
    assert hit_b.asked[1:] == plain_b.asked[1:] and len(plain_b.asked) > 1


def test_cpu_blocks_fill_the_budget_beyond_the_gpu_cap():
    # 0.25 ms + 0.5 ms per pair, 2 s for 20 blocks: 133 runs of each side per block on CPU, where a
    # block must span many scheduler ticks; the GPU plan stays at its cap of 50
    cpu_a, cpu_b = Recorded(0.25), Recorded(0.5)
    timing.interleave(cpu_a, cpu_b, None, 2.0, 0, "perf_counter")
    gpu_a, gpu_b = Recorded(0.25), Recorded(0.5)
    timing.interleave(gpu_a, gpu_b, None, 2.0, 0, "cuda_event")
    assert set(cpu_b.asked[1:]) == {133} and set(gpu_b.asked[1:]) == {timing.MAX_BLOCK_RUNS_GPU}


class DeviceLog:
    """The CUDA side of the timing module, replaced: events, the L2 flush and the synchronisation
    write to one log, and a fake device clock advances only when the device "runs" work."""

    def __init__(self, monkeypatch) -> None:
        self.log: list[str] = []
        self.clock = 0.0
        log = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                self.at: float | None = None

            def record(self) -> None:
                self.at = log.clock
                log.log.append("event")

            def elapsed_time(self, end: "Event") -> float:
                assert self.at is not None and end.at is not None, "elapsed_time of an unrecorded event"
                assert log.log[-1] == "sync" or "sync" in log.log, "read before the device was synchronised"
                return end.at - self.at

        monkeypatch.setattr(timing, "_Event", Event)
        monkeypatch.setattr(timing, "_flush_l2", lambda device: log.log.append("flush"))
        monkeypatch.setattr(timing, "_synchronize", lambda device=None: log.log.append("sync"))
        monkeypatch.setattr(timing, "_sleep", lambda cycles: log.log.append(f"sleep {cycles}"))

    def kernel(self, ms: float, out: torch.Tensor | None = None):
        def fn():
            self.log.append("call")
            self.clock += ms
            return torch.empty(1) if out is None else out
        return fn


def test_gpu_runs_of_a_block_are_queued_with_one_synchronisation(monkeypatch):
    dev = DeviceLog(monkeypatch)
    runs = timing.Runs(dev.kernel(0.25), torch.device("cuda"))
    times = runs(4)
    # every run: a flush, then the call between its own two events; the host waits once, at the end
    assert dev.log == ["flush", "event", "call", "event"] * 4 + ["sync"]
    assert times == [0.25] * 4


def test_queued_runs_still_see_a_reused_output_buffer(monkeypatch):
    dev = DeviceLog(monkeypatch)
    same = torch.empty(3)
    cached = timing.Runs(dev.kernel(0.1, out=same), torch.device("cuda"), check_reuse=True)
    cached(3)
    fresh = timing.Runs(dev.kernel(0.1), torch.device("cuda"), check_reuse=True)
    fresh(3)
    assert cached.reused and not fresh.reused


def test_measure_on_gpu_plans_from_one_waited_run_then_queues(monkeypatch):
    dev = DeviceLog(monkeypatch)
    m = measure(dev.kernel(0.5), torch.device("cuda"), warmup=1, runs=5)
    # warm-up (1) and the extra warm call are untimed; the first timed run waits for the device,
    # the other four are queued behind one synchronisation
    timed = dev.log[dev.log.index("flush"):]
    assert timed == ["flush", "event", "call", "event", "sync"] + ["flush", "event", "call", "event"] * 4 + ["sync"]
    assert m.runs == 5 and m.median_ms == 0.5 and m.method == "cuda_event" and timing.queued(m.method)
    assert not timing.queued(timing.clock_name(CPU))


def test_a_lone_gpu_call_is_issued_behind_a_sleep_and_timed_like_a_run(monkeypatch):
    """The fresh-input check's first call: the device is idle (waited for), a sleep is queued so the
    call's host path is issued while it sleeps, then the flush and the call between two events."""
    dev = DeviceLog(monkeypatch)
    ms, out = timing.lone_run(dev.kernel(0.75), torch.device("cuda"))
    assert dev.log == ["sync", f"sleep {timing.COVER_CYCLES}", "flush", "event", "call", "event", "sync"]
    assert ms == 0.75 and isinstance(out, torch.Tensor)


def test_a_lone_cpu_call_is_wall_clocked(clock):
    c = clock(lambda now: 1.0)
    call = c.fn(2.5)
    ms, out = timing.lone_run(lambda: call() or "answer", CPU)
    assert out == "answer" and ms == pytest.approx(2.5, rel=0.06)
