"""Host cost of one call against its GPU time: is a short row timed on the host's Python path?

For a lowered candidate (or ``--eager``, the task's own model) at the task's shapes, three figures
a call, each a median over ``--calls`` calls after a warm-up:

* ``host_us``  -- wall time to *issue* one call with the GPU kept busy (a long sleep kernel queued
  first), so nothing waits on the device: the wrapper's checks, allocations and launchers alone;
* ``warm_host_us`` -- the same issue time for calls issued back to back behind one sleep, so the
  host's caches and clocks stay warm (the first figure is each call's after a wait on the device);
* ``gpu_us``   -- CUDA events around back-to-back calls, no flush: the device's time a call when
  the queue never runs dry;
* ``timed_us`` -- the verifier's own figure (an L2 flush before each call, events around it, a
  block's calls issued back to back with one wait after them);
* ``waited_us`` -- the same with a wait on the device after every call (the verifier's figure
  before 2026-12-07): the cold host path after each wait, less what the flush hides, is inside it.

When ``warm_host_us`` approaches ``timed_us`` the row is bound by the host rather than the kernel,
and a faster kernel would not show; a CUDA-graph replay would.

``--breakdown`` (a candidate) splits ``host_us``: ``wrapper_us`` is the call with every Triton launch
replaced by a no-op (the candidate's checks, views and allocations), ``jit_us`` the launches alone
through ``JITFunction`` with the arguments of the call, ``direct_us`` the same launches through the
compiled kernels' own launchers (no binder, no cache key) -- what a cached launcher would pay.

    PYTHONPATH=. python benchmarks/probes/host_overhead.py TASK.py [CANDIDATE.py] [--eager] \
        [--set K0_BLOCK=4096] [--calls 50] [--breakdown] [--json OUT.jsonl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # probe_model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", help="the task's .py (Model, get_inputs, get_init_inputs)")
    ap.add_argument("candidate", nargs="?", help="a lowered candidate .py (ModelNew, module-level tunables)")
    ap.add_argument("--eager", action="store_true", help="the task's own model instead of a candidate")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a tunable's value (repeatable)")
    ap.add_argument("--calls", type=int, default=50, help="calls a figure (default 50)")
    ap.add_argument("--breakdown", action="store_true", help="split the issue time (a candidate only)")
    ap.add_argument("--label", default="")
    ap.add_argument("--json", metavar="OUT", help="append one JSON line")
    args = ap.parse_args(argv)
    if not args.eager and not args.candidate:
        ap.error("name a candidate or pass --eager")

    import torch

    from akg_rag.verify import timing
    from probe_model import build, settings

    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    model, inputs = build(args.task, args.candidate, args.eager, args.set, "akg_host")
    n = max(args.calls, 3)
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        torch.cuda.synchronize()

        # host: the device kept busy by a sleep long enough to cover every issue, each call after a
        # wait on the device, then calls back to back (warm)
        host_us, warm_us = _issue_us(lambda: model(*inputs), n)

        # gpu: back-to-back calls between two events, the queue never empty
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(50_000_000)
        start.record()
        for _ in range(n):
            model(*inputs)
        end.record()
        torch.cuda.synchronize()
        gpu_us = start.elapsed_time(end) * 1e3 / n

        # timed: the verifier's measurement (flush before each call, a block's calls queued), and
        # each call alone after a wait on the device (what the verifier measured before)
        timed = [ms * 1e3 for ms in timing.Runs(lambda: model(*inputs), device)(n)]
        waited = [timing._one_run(lambda: model(*inputs), device)[0] * 1e3 for _ in range(n)]

        parts = breakdown(model, inputs, n) if args.breakdown and not args.eager else {}

    row = {"task": Path(args.task).stem, "candidate": "eager" if args.eager else str(args.candidate),
           "set": dict(settings(args.set)), "label": args.label, "device": torch.cuda.get_device_name(),
           "calls": n, "host_us": host_us, "warm_host_us": warm_us, "gpu_us": round(gpu_us, 2),
           "timed_us": round(statistics.median(timed), 2), "waited_us": round(statistics.median(waited), 2),
           **parts}
    print(f"{row['task']} {row['candidate'] if args.eager else Path(row['candidate']).parent.name}: "
          f"host {row['host_us']} us to issue ({row['warm_host_us']} warm), gpu {row['gpu_us']} us back to back, "
          f"timed {row['timed_us']} us (flush before each, queued), {row['waited_us']} us waited for one by one")
    if parts:
        print("  " + ", ".join(f"{k} {v}" for k, v in parts.items()))
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps(row) + "\n")
    return 0


def _issue_us(fn, n: int) -> tuple[float, float]:
    """Wall time to issue ``fn()`` with the device kept busy: the median over calls each made after
    a wait on the device, and the mean of calls issued back to back (warm)."""
    import torch

    times = []
    for _ in range(n):
        torch.cuda._sleep(50_000_000)   # ~25-50 ms of GPU cycles ahead of the call
        t0 = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t0) / 1e3)
        torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn()
    warm = (time.perf_counter_ns() - t0) / 1e3 / n
    torch.cuda.synchronize()
    return round(statistics.median(times), 2), round(warm, 2)


def breakdown(model, inputs, n: int) -> dict:
    """``wrapper_us``, ``jit_us`` and ``direct_us`` of one call (see the module docstring)."""
    from triton.runtime.jit import JITFunction

    module = sys.modules[type(model).__module__]
    kernels = {name: k for name, k in vars(module).items() if isinstance(k, JITFunction)}
    launches: list[tuple] = []

    class Recorder:
        def __init__(self, name, real, record):
            self.name, self.real, self.record = name, real, record

        def __getitem__(self, grid):
            def launch(*a, **kw):
                if self.record:
                    launches.append((self.name, grid, a, kw, self.real[grid](*a, **kw)))
            return launch

    for name, k in kernels.items():
        setattr(module, name, Recorder(name, k, True))
    model(*inputs)
    for name, k in kernels.items():
        setattr(module, name, Recorder(name, k, False))
    wrapper, wrapper_warm = _issue_us(lambda: model(*inputs), n)
    for name, k in kernels.items():
        setattr(module, name, k)

    def jit_all():
        for name, grid, a, kw, _ in launches:
            kernels[name][grid](*a, **kw)

    jit, jit_warm = _issue_us(jit_all, n)
    out = {"launches": len(launches), "wrapper_us": wrapper, "wrapper_warm_us": wrapper_warm, "jit_us": jit,
           "jit_warm_us": jit_warm}
    try:
        direct = []
        for name, grid, a, kw, compiled in launches:
            k = kernels[name]
            bound = [*a] + [kw[p.name] for p in k.params[len(a):]]
            g = tuple(grid) + (1,) * (3 - len(grid))
            direct.append((compiled[g], bound))

        def direct_all():
            for run, bound in direct:
                run(*bound)
        out["direct_us"], out["direct_warm_us"] = _issue_us(direct_all, n)
    except Exception as e:  # noqa: BLE001 - a probe: say why and keep the other figures
        out["direct_error"] = f"{type(e).__name__}: {e}"[:200]
    return out


if __name__ == "__main__":
    sys.exit(main())
