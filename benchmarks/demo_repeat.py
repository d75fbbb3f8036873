"""Does the demo's speedup repeat? Verify the demo's task and kernel N times and compare the intervals.

    PYTHONPATH=. python benchmarks/demo_repeat.py                 # 3 runs as the machine is
    PYTHONPATH=. python benchmarks/demo_repeat.py --load 2 -n 4   # with 2 busy-loop processes beside
    PYTHONPATH=. python benchmarks/demo_repeat.py --cpu-threads 1 --json out.json

``make demo`` ends with the verifier's eager speedup of a C++ softmax on ``examples/softmax_task.py``.
This runs that verification (the full sandboxed protocol: judge and candidate processes, eager and
the kernel interleaved in blocks) ``-n`` times and prints each speedup with its interval, the
spread of the per-block ratios, the thread count and the load average, then whether every pair of
intervals overlaps -- two runs that do not overlap contradict each other, whatever each one says.
``--load K`` starts K processes that spin in a Python loop for the whole measurement (stopped by
pid at the end), to show what other work on the machine does to the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from akg_rag.verify import VerifyOptions, verify

ROOT = Path(__file__).resolve().parent.parent
TASK = ROOT / "examples" / "softmax_task.py"
KERNEL = ROOT / "knowledge" / "kernels" / "softmax" / "cpp_cpu.py"


def start_load(k: int) -> list[subprocess.Popen]:
    """``k`` processes that keep one core busy each (a Python busy loop, no I/O)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]


def stop_load(procs: list[subprocess.Popen]) -> None:
    """Stop the processes :func:`start_load` started (each by its own pid)."""
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def one(task: Path, kernel: Path, opts: VerifyOptions) -> dict[str, Any]:
    """One verification; the figures a repeat comparison needs."""
    load = os.getloadavg()[0]
    started = time.monotonic()
    r = verify(task, kernel, dsl="cpp", backend="cpu", options=opts)
    t = r.timings
    row: dict[str, Any] = {"status": r.status, "wall_s": round(time.monotonic() - started, 1),
                           "load_1min": round(load, 2)}
    if t is not None:
        ratios = sorted(getattr(t, "block_ratios", []))  # absent before the field existed
        row.update(speedup=t.speedup_eager, low=t.speedup_eager_low, high=t.speedup_eager_high,
                   verdict=t.verdict_eager, text=t.speedup_text("eager"), blocks=t.blocks,
                   candidate_ms=t.candidate_ms, eager_ms=t.eager_ms, eager_isolated_ms=t.eager_isolated_ms,
                   device=t.device,
                   ratio_min=ratios[0] if ratios else None, ratio_max=ratios[-1] if ratios else None)
    return row


def overlaps(rows: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Pairs (i, j) of runs whose speedup intervals do not overlap."""
    timed = [(i, r) for i, r in enumerate(rows) if r.get("low") is not None]
    return [(i, j) for a, (i, ri) in enumerate(timed) for j, rj in timed[a + 1:]
            if ri["high"] < rj["low"] or rj["high"] < ri["low"]]


def line(i: int, r: dict[str, Any]) -> str:
    """One run, for a terminal."""
    if r.get("speedup") is None:
        return f"run {i}: {r['status']} (no timing)"
    spread = f", block ratios {r['ratio_min']:.3g}-{r['ratio_max']:.3g}" if r.get("ratio_min") else ""
    return (f"run {i}: {r['text']}  ({r['verdict']}; {r['blocks']} blocks{spread}; candidate {r['candidate_ms']:.4g} ms, eager "
            f"{r['eager_ms']:.4g} ms; {r['device']}; load {r['load_1min']}; {r['wall_s']} s)")


def main(argv: list[str] | None = None) -> int:
    """Run the repeats; exit 0 when every pair of intervals overlaps."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--repeat", type=int, default=3, help="verifications to run (default 3)")
    ap.add_argument("--load", type=int, default=0, metavar="K", help="busy-loop processes beside (default 0)")
    ap.add_argument("--cpu-threads", type=int, default=None, help="threads of both sides (default: all CPUs)")
    ap.add_argument("--compile-baseline", action="store_true", help="also time torch.compile, as make demo does")
    ap.add_argument("--task", type=Path, default=TASK)
    ap.add_argument("--kernel", type=Path, default=KERNEL, help="a cpp/cpu candidate (default: the softmax seed)")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    opts = VerifyOptions(compile_baseline=args.compile_baseline, cpu_threads=args.cpu_threads)
    load = start_load(args.load)
    rows = []
    try:
        for i in range(args.repeat):
            rows.append(one(args.task, args.kernel, opts))
            print(line(i, rows[-1]), flush=True)
    finally:
        stop_load(load)
    bad = overlaps(rows)
    print("every pair of intervals overlaps" if not bad else
          "intervals that do not overlap: " + ", ".join(f"runs {i} and {j}" for i, j in bad))
    if args.json:
        Path(args.json).write_text(json.dumps({"load_processes": args.load, "cpu_threads": args.cpu_threads,
                                               "rows": rows, "disjoint_pairs": bad}, indent=2) + "\n")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
