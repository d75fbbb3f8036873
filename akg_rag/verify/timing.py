"""Timing: one callable alone (:func:`measure`), or a baseline and a candidate interleaved (:func:`compare`).

A speedup measured on a loaded machine is only worth its interval. :func:`interleave` times the
baseline and the candidate in alternating blocks (A B, B A, A B, ...), so load that comes and goes
hits both alike. Each side is a *block timer* (n runs -> their times): :class:`Runs` for a callable
in this process (:func:`compare` uses two), or the candidate process answering over the channel
(:mod:`akg_rag.verify.paired`, where the judge times eager itself). Each block gives one ratio
(baseline median / candidate median within the block), and the speedup is the median of those
ratios with a distribution-free confidence interval from order statistics (:func:`median_interval`). An interval that contains 1.0
means *no measurable difference*; no number is claimed then.

On CUDA each run sits between two CUDA events and a 256 MB buffer is rewritten before it, so no run
finds its inputs still in L2 (the H200's L2 is 50 MB). The runs of a block are issued back to back
and the device is synchronised once, after the block (:func:`_queued_runs`): while the device flushes
and runs call *i*, the host issues call *i + 1*, so a call's host path (argument checks, Python
launchers) is inside its events only where it outlasts the device's work -- a host-bound call still
shows as one, but a kernel is not charged for a cold host path after every synchronisation (what a
per-run wait measured: on an H200 the 57 us flush hid a one-launch call's host path only in part).
For calls under :data:`GRAPH_BELOW_MS` the pair is also captured into CUDA graphs and their replays
timed the same way (flush included); both results are reported and named. On CPU each
run is timed with ``time.perf_counter_ns``. Timer functions are captured when this module is
imported -- before any candidate code runs -- so a candidate that replaces them cannot fool the clock.

When several verification children share a device (an executor with ``jobs > 1``), each holds an
advisory file lock (``lock_path``) during its timed runs only: warm-up -- where Triton JIT and
``torch.compile`` do their compiling -- runs in parallel, the timed runs never overlap.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

import torch

from akg_rag.verify.tensors import foreign_types

_perf_ns = time.perf_counter_ns
_monotonic = time.monotonic
_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize
_sleep = torch.cuda._sleep

L2_FLUSH_BYTES = 256 * 1024 * 1024
_flush_buffers: dict[str, torch.Tensor] = {}

CONFIDENCE = 0.95          # two-sided confidence of every reported interval
MIN_BLOCKS = 6             # fewest blocks whose median interval reaches 95 % (1 - 2 / 2**6 = 0.969)
TARGET_BLOCKS = 20         # blocks a timing budget is planned for
MAX_BLOCKS = 200           # stop here even when the budget allows more
REL_HALF_WIDTH = 0.02      # stop early once the speedup interval is within +-2 % of its estimate
GRAPH_BELOW_MS = 0.05      # calls faster than 50 us are also timed as CUDA graph replays
PILOT_RUNS = 2             # runs per side that plan the blocks; the fastest counts
COVER_CYCLES = 4_000_000   # GPU clock cycles (~2 ms) queued ahead of a lone timed call (:func:`lone_run`)
MAX_BLOCK_RUNS_GPU = 50    # runs of one side per block on CUDA
MAX_BLOCK_RUNS_CPU = 1000  # on CPU a block fills its share of the budget: it spans many scheduler
                           # ticks (4 ms at 250 Hz), so one preemption cannot move its median

Method = str  # "perf_counter" (CPU), "cuda_event", "cuda_graph"


@dataclass
class Measurement:
    """Timed runs of one callable: median, spread and the median's confidence interval (ms)."""

    median_ms: float
    runs: int
    warmup: int
    reused_output: bool = False
    q1_ms: float | None = None        # 25th percentile of the runs
    q3_ms: float | None = None        # 75th percentile
    low_ms: float | None = None       # confidence interval of the median (order statistics)
    high_ms: float | None = None
    method: Method = ""

    @property
    def spread_ms(self) -> float | None:
        """Interquartile range of the runs (ms), the spread reported beside the median."""
        return None if self.q1_ms is None or self.q3_ms is None else self.q3_ms - self.q1_ms


@dataclass
class Interval:
    """A ratio estimate with its confidence interval: ``low <= estimate <= high``."""

    estimate: float
    low: float
    high: float
    confidence: float   # achieved two-sided confidence (>= CONFIDENCE with MIN_BLOCKS blocks)
    blocks: int         # independent ratios it rests on

    @property
    def verdict(self) -> str:
        """"faster", "slower" or "no measurable difference" (the interval straddles 1.0)."""
        if self.low > 1.0:
            return "faster"
        if self.high < 1.0:
            return "slower"
        return "no measurable difference"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field and the verdict."""
        return {**asdict(self), "verdict": self.verdict}


@dataclass
class Comparison:
    """Baseline and candidate timed interleaved: both measurements and the speedup interval."""

    baseline: Measurement
    candidate: Measurement
    speedup: Interval                     # baseline / candidate
    reused_output: bool = False           # the candidate returned one buffer on consecutive calls
    graph: "Comparison | None" = None     # the same pair as CUDA graph replays (short calls on GPU)
    graph_error: str = ""                 # why graph timing was not possible, when it was tried
    block_ratios: list[float] = field(default_factory=list)  # baseline / candidate of each block, in order


# --- statistics --------------------------------------------------------------------------------

def _binom_pmf(i: int, n: int) -> float:
    """P(X = i) for X ~ Binomial(n, 1/2), in log space (n may be in the thousands)."""
    return math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0))


def median_interval(values: list[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Distribution-free interval of the median: ``(low, high, achieved confidence)``.

    With sorted values x(1) <= ... <= x(n), [x(k), x(n+1-k)] holds the true median with probability
    1 - 2 P(Binom(n, 1/2) <= k - 1); k is the largest index keeping that at least ``confidence``.
    Fewer than 6 values cannot reach 95 %: the range is returned with the confidence it has.
    """
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise ValueError("median_interval of no values")
    alpha = 1.0 - confidence
    k = 1
    tail = _binom_pmf(0, n)  # P(X <= k - 1)
    # index k + 1 covers with 1 - 2 P(X <= k); move inwards while that stays >= confidence
    while k + 1 <= (n + 1) // 2:
        nxt = tail + _binom_pmf(k, n)
        if 2 * nxt > alpha:
            break
        tail, k = nxt, k + 1
    return xs[k - 1], xs[n - k], 1.0 - 2 * tail


def _quartiles(xs: list[float]) -> tuple[float, float]:
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def summarize(times: list[float], warmup: int, method: Method, reused: bool = False) -> Measurement:
    """A :class:`Measurement` of raw run times (ms)."""
    low, high, _ = median_interval(times)
    q1, q3 = _quartiles(times)
    return Measurement(statistics.median(times), len(times), warmup, reused, q1, q3, low, high, method)


def ratio_interval(num: Measurement, den: Measurement) -> Interval | None:
    """Conservative interval of ``num / den`` for two measurements taken apart (not interleaved).

    Each median interval holds at ``CONFIDENCE``; both hold together at ``1 - 2 (1 - CONFIDENCE)``
    at least (Bonferroni), which is the confidence stated.
    """
    if not (num.median_ms and den.median_ms and num.low_ms and den.high_ms and den.low_ms and num.high_ms):
        return None
    return Interval(num.median_ms / den.median_ms, num.low_ms / den.high_ms, num.high_ms / den.low_ms,
                    max(0.0, 1.0 - 2 * (1.0 - CONFIDENCE)), 0)


# --- clocks ------------------------------------------------------------------------------------

def storages(out: Any) -> tuple[int, ...]:
    """Data pointers of the storages behind an output (tensor or tuple/list of tensors)."""
    items = out if isinstance(out, (tuple, list)) else (out,)
    return tuple(t.untyped_storage().data_ptr() for t in items
                 if isinstance(t, torch.Tensor) and t.numel() > 0)


def _flush_l2(device: torch.device) -> None:
    key = str(device)
    buf = _flush_buffers.get(key)
    if buf is None:
        buf = _flush_buffers[key] = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=device)
    buf.zero_()


@contextlib.contextmanager
def exclusive(lock_path: str | None) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock_path`` (no-op when None or without fcntl)."""
    if not lock_path:
        yield
        return
    try:
        import fcntl
    except ImportError:  # not POSIX: no cross-process lock, timings may overlap
        yield
        return
    with open(lock_path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _one_run(fn: Callable[[], Any], device: torch.device) -> tuple[float, Any]:
    """Time one call in milliseconds, waiting for the device after it; returns (ms, output).
    Nothing but ``fn`` runs between the marks."""
    if device.type == "cuda":
        _flush_l2(device)
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        start.record()
        out = fn()
        end.record()
        _synchronize(device)
        return start.elapsed_time(end), out
    t0 = _perf_ns()
    out = fn()
    return (_perf_ns() - t0) / 1e6, out


def lone_run(fn: Callable[[], Any], device: torch.device) -> tuple[float, Any]:
    """Time one call on its own as a timed run is timed (an L2 flush before it, events around it);
    returns (ms, output). On CUDA a sleep of :data:`COVER_CYCLES` is queued first, so the call's host
    path is issued while the device still sleeps: the figure is the device's time for the call, as in
    a queued block, not a cold host path after a wait. Anything the call waits for on the host (a
    synchronisation, a value read back) is still inside it."""
    if device.type == "cuda":
        _synchronize(device)
        _sleep(COVER_CYCLES)
    return _one_run(fn, device)


def _queued_runs(fn: Callable[[], Any], device: torch.device, n: int,
                 seen: Callable[[Any], None] | None = None) -> list[float]:
    """Time ``n`` calls on CUDA, issued back to back: each after an L2 flush and between its own pair
    of events, one synchronisation after the last. ``seen`` gets each output as it is returned
    (before the device has run it: pointers, not values). Returns the times in milliseconds."""
    marks = []
    for _ in range(n):
        _flush_l2(device)
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        start.record()
        out = fn()
        end.record()
        marks.append((start, end))
        if seen is not None:
            seen(out)
        del out
    _synchronize(device)
    return [start.elapsed_time(end) for start, end in marks]


def queued(method: Method) -> bool:
    """Whether runs timed with ``method`` are queued back to back (:class:`Runs` on CUDA)."""
    return method in ("cuda_event", "cuda_graph")


def clock_name(device: torch.device) -> Method:
    """The clock that times runs on ``device``: "cuda_event" or "perf_counter"."""
    return "cuda_event" if device.type == "cuda" else "perf_counter"


# --- one callable ------------------------------------------------------------------------------

def measure(fn: Callable[[], Any], device: torch.device, *, warmup: int | None = None,
            runs: int | None = None, budget_s: float = 1.0,
            input_ptrs: tuple[int, ...] = (), lock_path: str | None = None) -> Measurement:
    """Median time of ``fn()`` in milliseconds, with its spread and interval.

    ``warmup`` defaults to 10 on CUDA and 2 on CPU. With ``runs`` unset, as many runs as fit in
    ``budget_s`` seconds are taken, at least 5 and at most 1000 (CUDA) or 200 (CPU). An output that
    aliases one of ``input_ptrs`` (an in-place op) does not count as a reused buffer. The timed
    runs (not the warm-up) hold ``lock_path`` exclusively; see the module docstring.
    """
    gpu = device.type == "cuda"
    warmup = (10 if gpu else 2) if warmup is None else warmup
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        if gpu:
            _synchronize(device)
        with exclusive(lock_path):
            return _timed_runs(fn, device, runs, budget_s, input_ptrs, warmup)


def _timed_runs(fn: Callable[[], Any], device: torch.device, runs: int | None, budget_s: float,
                input_ptrs: tuple[int, ...], warmup: int) -> Measurement:
    """The timed part of :func:`measure` (called under ``torch.no_grad``, holding the lock)."""
    gpu = device.type == "cuda"
    fn()  # one more warm call: while waiting for the lock, other work may have evicted caches
    first_ms, first = _one_run(fn, device)
    if runs is None:
        cap = 1000 if gpu else 200
        runs = int(max(5, min(cap, budget_s * 1000.0 / max(first_ms, 1e-3))))
    timer = Runs(fn, device, input_ptrs, check_reuse=True)
    timer.see(first)
    del first
    times = [first_ms] + timer(runs - 1)
    timer.release()
    return summarize(times, warmup, clock_name(device), timer.reused)


# --- baseline against candidate ----------------------------------------------------------------

@dataclass
class _Plan:
    per_block: int      # runs of each callable per block
    min_blocks: int
    max_blocks: int
    budget_s: float     # stop adding blocks past this (after min_blocks)
    adaptive: bool      # stop early once the interval is narrow enough


def _plan(a_ms: float, b_ms: float, runs: int | None, budget_s: float,
          max_per_block: int = MAX_BLOCK_RUNS_GPU) -> _Plan:
    """How many blocks of how many runs: ``runs`` per callable if given, else what fits the budget
    (:data:`TARGET_BLOCKS` blocks, each side at most ``max_per_block`` runs per block)."""
    if runs is not None:
        blocks = max(MIN_BLOCKS, min(TARGET_BLOCKS, runs))
        return _Plan(max(1, runs // blocks), blocks, blocks, float("inf"), False)
    pair_ms = max(a_ms + b_ms, 1e-3)
    per_block = int(max(1, min(max_per_block, budget_s * 1000.0 / (pair_ms * TARGET_BLOCKS))))
    return _Plan(per_block, MIN_BLOCKS, MAX_BLOCKS, budget_s, True)


BlockTimer = Callable[[int], "list[float]"]  # times n calls of one side, returns their times (ms)


class Runs:
    """A :data:`BlockTimer` of a local callable: ``runs(n)`` times ``n`` calls, queued on CUDA
    (:func:`_queued_runs`), one at a time on the CPU clock (:func:`_one_run`).

    With ``check_reuse`` it remembers the previous output across blocks and sets ``reused`` when a
    call returns the very same buffer (one that is not an input: ``input_ptrs``), and ``foreign`` to
    the names of output types other than a plain tensor (a subclass may compute when read).
    """

    def __init__(self, fn: Callable[[], Any], device: torch.device, input_ptrs: tuple[int, ...] = (),
                 check_reuse: bool = False) -> None:
        self.fn, self.device, self.input_ptrs, self.check_reuse = fn, device, set(input_ptrs), check_reuse
        self.reused = False
        self.foreign: list[str] = []
        self._prev: Any = None
        self._prev_ptrs: tuple[int, ...] = ()

    def __call__(self, n: int) -> list[float]:
        seen = self.see if self.check_reuse else None
        if self.device.type == "cuda":
            return _queued_runs(self.fn, self.device, n, seen)
        times = []
        for _ in range(n):
            ms, out = _one_run(self.fn, self.device)
            times.append(ms)
            if seen is not None:
                seen(out)
        return times

    def see(self, out: Any) -> None:
        """Note one output for the reuse check (a call made outside :meth:`__call__` too)."""
        for name in foreign_types(out):   # by type alone, before anything of the output runs
            if name not in self.foreign:
                self.foreign.append(name)
        ptrs = storages(out)
        # the previous output is still alive, so equal pointers mean the same buffer
        if ptrs and ptrs == self._prev_ptrs and not set(ptrs) <= self.input_ptrs:
            self.reused = True
        self._prev, self._prev_ptrs = out, ptrs

    def release(self) -> None:
        """Drop the output kept for the reuse check."""
        self._prev, self._prev_ptrs = None, ()


def compare(baseline: Callable[[], Any], candidate: Callable[[], Any], device: torch.device, *,
            warmup: int | None = None, runs: int | None = None, budget_s: float = 2.0,
            input_ptrs: tuple[int, ...] = (), lock_path: str | None = None,
            graphs: bool | None = None) -> Comparison:
    """Time ``baseline`` and ``candidate`` interleaved and return the speedup with its interval.

    Blocks alternate their order (AB, BA, AB, ...) so a trend in load shifts both alike. ``runs``
    fixes the runs per callable (spread over at least :data:`MIN_BLOCKS` blocks); otherwise blocks
    are added until ``budget_s`` is spent (at least ``MIN_BLOCKS``), or the interval is within
    +-:data:`REL_HALF_WIDTH` of its estimate. ``graphs`` (default: on CUDA when either call takes
    under :data:`GRAPH_BELOW_MS`) also times both as CUDA graph replays. Holds ``lock_path`` while
    timing. Call with verifier hooks paused: nothing else should run between the clock marks.
    Both callables run in this process; :func:`interleave` takes block timers that need not.
    """
    gpu = device.type == "cuda"
    warmup = (10 if gpu else 2) if warmup is None else warmup
    with torch.no_grad():
        for _ in range(warmup):
            baseline()
            candidate()
        if gpu:
            _synchronize(device)
        with exclusive(lock_path):
            cand = Runs(candidate, device, input_ptrs, check_reuse=True)
            result = interleave(Runs(baseline, device), cand, runs, budget_s, warmup, clock_name(device))
            result.reused_output = result.candidate.reused_output = cand.reused
            cand.release()
            if graphs is None:
                graphs = wants_graphs(device, result)
            if graphs and gpu:
                try:
                    ga, gb = capture_graph(baseline, device), capture_graph(candidate, device)
                    result.graph = interleave(Runs(ga.replay, device), Runs(gb.replay, device), runs,
                                              budget_s, warmup, "cuda_graph")
                except Exception as e:  # noqa: BLE001 - host syncs, allocations...: not capturable
                    result.graph_error = graph_error_text(e)
    return result


def wants_graphs(device: torch.device, result: Comparison) -> bool:
    """Whether a pair timed with events should also be timed as graph replays (short GPU calls)."""
    return device.type == "cuda" and min(result.baseline.median_ms, result.candidate.median_ms) < GRAPH_BELOW_MS


def graph_error_text(e: BaseException) -> str:
    """Why a graph capture failed, in one short line."""
    return f"{type(e).__name__}: {str(e).strip()[:200]}"


def interleave(a: BlockTimer, b: BlockTimer, runs: int | None, budget_s: float, warmup: int,
               method: Method) -> Comparison:
    """Timed blocks of ``a`` and ``b`` in ABAB/BABA order: both measurements and the speedup a/b.

    Call under ``no_grad`` and the timing lock. Each side first runs ``1 + PILOT_RUNS`` times
    outside the blocks: the first call warms what waiting for the lock let go cold, the fastest of
    the others (the pilot) plans the blocks -- one run that a preemption stretched 50-fold would
    otherwise shrink every block to a few runs. On CPU (``method`` "perf_counter") blocks may hold
    up to :data:`MAX_BLOCK_RUNS_CPU` runs, on CUDA :data:`MAX_BLOCK_RUNS_GPU`.
    """
    a_ms = min(a(1 + PILOT_RUNS)[1:])
    b_ms = min(b(1 + PILOT_RUNS)[1:])
    cap = MAX_BLOCK_RUNS_CPU if method == "perf_counter" else MAX_BLOCK_RUNS_GPU
    plan = _plan(a_ms, b_ms, runs, budget_s, cap)
    a_times: list[float] = []
    b_times: list[float] = []
    ratios: list[float] = []
    started = _monotonic()
    block = 0
    while block < plan.max_blocks:
        if block % 2 == 0:
            block_a = a(plan.per_block)
            block_b = b(plan.per_block)
        else:
            block_b = b(plan.per_block)
            block_a = a(plan.per_block)
        a_times += block_a
        b_times += block_b
        ratios.append(statistics.median(block_a) / max(statistics.median(block_b), 1e-9))
        block += 1
        if block < plan.min_blocks:
            continue
        if _monotonic() - started >= plan.budget_s:
            break
        if plan.adaptive:
            low, high, _ = median_interval(ratios)
            est = statistics.median(ratios)
            if (high - low) / 2 <= REL_HALF_WIDTH * est:
                break
    low, high, conf = median_interval(ratios)
    speedup = Interval(statistics.median(ratios), low, high, conf, len(ratios))
    return Comparison(summarize(a_times, warmup, method), summarize(b_times, warmup, method), speedup,
                      block_ratios=ratios)


def capture_graph(fn: Callable[[], Any], device: torch.device) -> Any:
    """``fn`` captured into a ``torch.cuda.CUDAGraph`` (warmed on a side stream first, as torch asks)."""
    side = torch.cuda.Stream(device=device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    _synchronize(device)
    return graph
