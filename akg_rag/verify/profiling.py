"""The profiler's kernel list of a verified candidate: what the performance analyst reads.

After timing, a few calls of the candidate run under ``torch.profiler``; the result is the list of
kernels (CUDA) or operators (CPU) with their time per call, most expensive first. It shows, for
instance, that a "fused" candidate still launches three kernels, or that a copy kernel from a
hidden ``.contiguous()`` costs as much as the kernel itself.
"""

from __future__ import annotations

from typing import Any

import torch

PROFILE_CALLS = 5     # profiled calls; figures are averaged per call
TOP_KERNELS = 15      # rows kept, most expensive first


def profile_calls(model: Any, inputs: list[Any], device: torch.device) -> list[dict[str, Any]]:
    """``[{name, time_us, count}]`` per call of ``model(*inputs)``; [] when the profiler fails.

    ``inputs`` are used as given: pass copies if the caller's must stay untouched.
    """
    from torch.profiler import ProfilerActivity, profile

    gpu = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
    try:
        with torch.no_grad(), profile(activities=activities) as prof:
            for _ in range(PROFILE_CALLS):
                model(*inputs)
            if gpu:
                torch.cuda.synchronize(device)
        events = prof.key_averages()
    except Exception:  # noqa: BLE001 - profiling is advice, never a verdict
        return []
    rows = []
    for ev in events:
        if gpu:
            # device kernels only: torch >= 2.4 names it device_time_total, older cuda_time_total
            total = getattr(ev, "device_time_total", None)
            total = getattr(ev, "cuda_time_total", 0.0) if total is None else total
            if getattr(ev, "device_type", None) is not None and "CUDA" not in str(ev.device_type):
                continue
        else:
            total = ev.self_cpu_time_total
        if total <= 0:
            continue
        rows.append({"name": ev.key[:160], "time_us": round(total / PROFILE_CALLS, 3),
                     "count": round(ev.count / PROFILE_CALLS, 2)})
    rows.sort(key=lambda r: r["time_us"], reverse=True)
    return rows[:TOP_KERNELS]
