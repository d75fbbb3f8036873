"""Verifier checks on a GPU: the sandbox level, the hostile candidates, and a task of KernelBench size.

    PYTHONPATH=. python benchmarks/verify_scale.py small   # tests/verify candidates on cuda
    PYTHONPATH=. python benchmarks/verify_scale.py big [GIB]  # y = relu(x * w), x of GIB GiB fp32, 5 trials

Prints one line per verification (status, guards, times, wall seconds) and the peak GPU memory the
device reported while the big task ran. Needs only torch and triton.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

from akg_rag.verify import VerifyOptions, sandbox, verify

HERE = Path(__file__).resolve().parent.parent / "tests" / "verify"
BIG_TASK = '''"""y = relu(x * w) on a {gib} GiB float32 input."""
import torch
import torch.nn as nn

M, N = {m}, 131072


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return torch.relu(x * self.weight)


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return [N]
'''


BIG_CANDIDATE = (HERE / "candidates" / "triton_correct.py").read_text().replace(
    "offs = tl.program_id(0) * BLOCK", "offs = tl.program_id(0).to(tl.int64) * BLOCK")  # > 2**31 elements


def run(task: Path, cand: str | Path, **kw: object) -> None:
    """Verify one candidate (a name in tests/verify/candidates, or a path) on cuda; print one line."""
    opts = dict(trials=2, compile_baseline=False, timeout_s=550.0)
    opts.update(kw)
    t = time.time()
    try:
        path = cand if isinstance(cand, Path) else HERE / "candidates" / f"{cand}.py"
        r = verify(task, path, dsl="triton", backend="cuda",
                   options=VerifyOptions(**opts))
    except Exception as e:  # noqa: BLE001 - a benchmark reports, it does not stop
        print("ERROR", cand, type(e).__name__, str(e)[:800], flush=True)
        return
    tm = r.timings
    figures = f"cand={tm.candidate_ms:.4g} ms eager={tm.eager_ms:.4g} ms x{tm.speedup_eager:.3g}" if tm else ""
    print("RESULT", Path(str(cand)).stem, r.status, r.violation_names(), "partial" if r.partial else "", figures,
          f"wall={time.time() - t:.1f}s", flush=True)
    if r.status != "correct":
        print("   ", r.feedback[:500].replace("\n", " | "), flush=True)


def gpu_peak(stop: threading.Event, peak: list[int]) -> None:
    """Poll the device's used memory (all processes) every 0.2 s."""
    import torch

    while not stop.is_set():
        free, total = torch.cuda.mem_get_info()
        peak[0] = max(peak[0], total - free)
        time.sleep(0.2)


def main(argv: list[str]) -> None:
    t = time.time()
    box = sandbox.choose(gpu=True)
    print("SANDBOX", box.level, "|", box.describe(), f"| probe {time.time() - t:.1f}s", flush=True)
    if argv[0] == "small":
        for cand in ("triton_correct", "triton_identity", "triton_decorative_aten", "triton_partial",
                     "triton_memo", "rt_procfs", "rt_frame_walk"):
            run(HERE / "tasks" / "rowscale.py", cand, static_guards=not cand.startswith("rt_"))
        return
    gib = float(argv[1]) if len(argv) > 1 else 8.0
    m = int(gib * (1 << 30) / 4 / 131072)
    with tempfile.TemporaryDirectory() as d:
        task = Path(d) / "big.py"
        task.write_text(BIG_TASK.format(gib=gib, m=m))
        cand = Path(d) / "big_candidate.py"
        cand.write_text(BIG_CANDIDATE)
        stop, peak = threading.Event(), [0]
        watcher = threading.Thread(target=gpu_peak, args=(stop, peak), daemon=True)
        watcher.start()
        run(task, cand, trials=5, compile_baseline=True)
        stop.set()
        print(f"PEAK GPU memory in use (all processes): {peak[0] / 2**30:.1f} GiB", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
