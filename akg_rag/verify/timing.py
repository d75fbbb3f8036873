"""Timing one callable: warm-up, then many timed runs, median reported.

On CUDA each run sits between two CUDA events and a 256 MB buffer is rewritten before it, so no run
finds its inputs still in L2 (the H200's L2 is 50 MB). On CPU each run is timed with
``time.perf_counter_ns``. Timer functions are captured when this module is imported -- before any
candidate code runs -- so a candidate that replaces ``time.perf_counter_ns`` cannot fool the clock.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
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
            input_ptrs: tuple[int, ...] = ()) -> Measurement:
    """Median time of ``fn()`` in milliseconds.

    ``warmup`` defaults to 10 on CUDA and 2 on CPU. With ``runs`` unset, as many runs as fit in
    ``budget_s`` seconds are taken, at least 5 and at most 1000 (CUDA) or 200 (CPU). An output that
    aliases one of ``input_ptrs`` (an in-place op) does not count as a reused buffer.
    """
    gpu = device.type == "cuda"
    warmup = (10 if gpu else 2) if warmup is None else warmup
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        if gpu:
            _synchronize(device)
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
