"""torch.compile against eager for one task, interleaved: the compile baseline without a candidate.

    PYTHONPATH=. python benchmarks/compile_baseline.py TASK.py [--device cuda] [--lock PATH] [--budget S]

Prints one JSON line: ``eager_ms``, ``compile_ms`` (medians of interleaved blocks, L2 flushed
before each run on CUDA, as the verifier times), ``compile_over_eager`` (eager / compiled, with
its 95% interval), ``compile_s`` (the first compiled call: inductor's compile time) and
``status`` (``ok``, ``compile_failed`` with the error, or ``error``). TF32 is off, as in the
verifier's reference; the model is built under the verifier's weight seed and run on one input set
drawn from its first timing seed. ``--lock`` holds an advisory file lock around the timed runs only,
so several of these can compile in parallel (inductor compiles on the CPU) while their timings never
overlap on the device: ``kernelbench.py baselines --jobs N`` runs them so.

Why it exists: the verifier times torch.compile beside every candidate (``speedup_compile``), which
costs a compile per verification. A candidate's speedup over compile can instead be anchored on
eager: ``speedup_eager x (compile_ms / eager_ms)``, the candidate's speedup over eager from its
verification times compile's time relative to eager from here. ``kernelbench.py report
--baselines`` does that where a row has no compile figure of its own, and names the method.
The per-problem pool (``baselines``) and that anchoring (``anchored``) live here too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure_task(task_path: str, device_name: str, lock: str | None, budget_s: float) -> dict:
    import torch

    from akg_rag.task import load_task
    from akg_rag.verify.options import VerifyOptions
    from akg_rag.verify.tensors import draw_inputs
    from akg_rag.verify.timing import compare

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device(device_name)
    seed = VerifyOptions().seed
    task = load_task(task_path)
    torch.manual_seed(seed)
    init = list(task.get_init_inputs())
    torch.manual_seed(seed)
    model = task.model_cls(*init).to(device)
    inputs = draw_inputs(task.input_sets, seed + 1, device)[0]
    out: dict = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
                 "torch": torch.__version__}
    compiled = torch.compile(model)
    started = time.monotonic()
    try:
        with torch.no_grad():
            compiled(*inputs)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    except Exception as e:  # noqa: BLE001 - inductor cannot compile it: a figure of its own
        first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
        return dict(out, status="compile_failed", error=f"{type(e).__name__}: {first}")
    out["compile_s"] = round(time.monotonic() - started, 2)
    cmp = compare(lambda: model(*inputs), lambda: compiled(*inputs), device, budget_s=budget_s, lock_path=lock)
    sp = cmp.speedup
    out.update(status="ok", eager_ms=cmp.baseline.median_ms, compile_ms=cmp.candidate.median_ms,
               compile_over_eager=sp.estimate, compile_over_eager_low=sp.low, compile_over_eager_high=sp.high,
               method=cmp.baseline.method, blocks=sp.blocks)
    if cmp.graph is not None:
        g = cmp.graph
        out.update(graph_eager_ms=g.baseline.median_ms, graph_compile_ms=g.candidate.median_ms,
                   graph_compile_over_eager=g.speedup.estimate)
    return out


# ---- per problem, for kernelbench.py (`baselines`, `report --baselines`) ----------------------

def baseline_rows(paths: list[str] | None) -> dict[str, dict]:
    """Rows of ``baselines`` result files by problem (later files win); other rows are skipped."""
    out: dict[str, dict] = {}
    for p in paths or []:
        path = Path(p)
        for line in path.read_text().splitlines() if path.is_file() else []:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and "problem" in row and row.get("baseline") == "compile":
                out[row["problem"]] = row
    return out


def baselines(problems: list[tuple[str, int, Path]], args: argparse.Namespace) -> int:
    """torch.compile against eager for every ``(key, level, task)`` not yet in ``args.results``,
    one child each (this script), ``args.jobs`` at once: inductor compiles in parallel on the CPU,
    the timed runs hold a file lock so they never overlap on the device. One line per problem."""
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    done = set(baseline_rows([str(results)]))
    todo = [p for p in problems if p[0] not in done]
    deadline = time.monotonic() + args.budget if args.budget else None
    tag = hashlib.sha1(str(results.resolve()).encode()).hexdigest()[:12]
    lock_file = Path(tempfile.gettempdir()) / f"akg-rag-baselines-{tag}.lock"
    script = Path(__file__).resolve()
    print(f"{len(todo)} problems ({args.jobs} compiling at a time)", flush=True)
    write = threading.Lock()

    def one(job: tuple[str, int, Path]) -> None:
        key, level, task = job
        if deadline and time.monotonic() > deadline:
            return
        started = time.monotonic()
        cmd = [sys.executable, str(script), str(task), "--device", args.device, "--lock", str(lock_file),
               "--budget", str(args.timing_budget)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            row = json.loads(lines[-1]) if lines else {
                "status": "error", "error": f"exit {proc.returncode}: {proc.stderr.strip()[-800:]}"}
        except subprocess.TimeoutExpired:
            row = {"status": "error", "error": f"no result within {args.timeout:g} s"}
        row = {"problem": key, "level": level, "baseline": "compile", **row,
               "wall_s": round(time.monotonic() - started, 1)}
        with write:
            with results.open("a") as f:
                f.write(json.dumps(row) + "\n")
            q = row.get("compile_over_eager")
            print(f"{key}: {row['status']}" + (f" compile {q:.2f}x eager" if isinstance(q, (int, float)) else "")
                  + (f" ({row.get('error', '')[:120]})" if row["status"] != "ok" else ""), flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, todo))
    if deadline and time.monotonic() > deadline:
        print("budget reached; rerun to continue", flush=True)
    return 0


def anchored(row: dict, base: dict | None) -> dict:
    """``row`` with an eager-anchored ``speedup_compile`` where it was timed without compile and a
    compile baseline exists: speedup over eager x (compile time / eager time)."""
    if (row.get("status") != "correct" or row.get("speedup_compile") is not None or not row.get("speedup_eager")
            or not base or base.get("status") != "ok" or not base.get("compile_over_eager")):
        return row
    return dict(row, speedup_compile=row["speedup_eager"] / base["compile_over_eager"],
                compile_method="eager-anchored")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--lock", default=None, help="file locked during the timed runs")
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of interleaved timed runs")
    args = ap.parse_args(argv)
    try:
        row = measure_task(args.task, args.device, args.lock, args.budget)
    except Exception as e:  # noqa: BLE001 - one line whatever happens
        row = {"status": "error", "error": f"{type(e).__name__}: {e}"[:1000],
               "trace": traceback.format_exc()[-1500:]}
    print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
