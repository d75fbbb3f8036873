"""Timing one callable: warm-up, then many timed runs, median reported.

On CUDA each run sits between two CUDA events and a 256 MB buffer is rewritten before it, so no run
finds its inputs still in L2 (the H200's L2 is 50 MB). On CPU each run is timed with
``time.perf_counter_ns``. Timer functions are captured when this module is imported -- before any
candidate code runs -- so a candidate that replaces ``time.perf_counter_ns`` cannot fool the clock.

When several verification children share a device (an executor with ``jobs > 1``), each holds an
advisory file lock (``lock_path``) during its timed runs only: warm-up -- where Triton JIT and
``torch.compile`` do their compiling -- runs in parallel, the timed runs never overlap.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from dataclasses import dataclass
from typing import Iterator
from typing import Any, Callable

import torch

_perf_ns = time.perf_counter_ns
_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize

L2_FLUSH_BYTES = 256 * 1024 * 1024
_flush_buffers: dict[str, torch.Tensor] = {}


@dataclass
class Measurement:
    """Median milliseconds of ``runs`` timed calls, and whether consecutive outputs shared storage."""

    median_ms: float
    runs: int
    warmup: int
    reused_output: bool = False


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
    """Time one call in milliseconds; returns (ms, output)."""
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


def measure(fn: Callable[[], Any], device: torch.device, *, warmup: int | None = None,
            runs: int | None = None, budget_s: float = 1.0,
            input_ptrs: tuple[int, ...] = (), lock_path: str | None = None) -> Measurement:
    """Median time of ``fn()`` in milliseconds.

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
    first_ms, prev = _one_run(fn, device)
    if runs is None:
        cap = 1000 if gpu else 200
        runs = int(max(5, min(cap, budget_s * 1000.0 / max(first_ms, 1e-3))))
    times = [first_ms]
    reused = False
    prev_ptrs = storages(prev)
    for _ in range(runs - 1):
        ms, out = _one_run(fn, device)
        ptrs = storages(out)
        # prev is still alive here, so equal pointers mean the very same buffer came back
        if ptrs and ptrs == prev_ptrs and not set(ptrs) <= set(input_ptrs):
            reused = True
        times.append(ms)
        prev, prev_ptrs = out, ptrs
    return Measurement(statistics.median(times), len(times), warmup, reused)
