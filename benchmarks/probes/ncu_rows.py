"""Hardware counters of one call of a lowered candidate, at the task's own shapes, read by Nsight
Compute: what holds a row below the copy rate (DRAM throughput, occupancy, warp stalls, sectors a
load request) rather than a guess from its time.

The candidate runs twice to compile and warm up, then once between ``cudaProfilerStart`` and
``cudaProfilerStop``; ``ncu`` profiles only that call's launches (kernel replay, clocks left
alone). Each launch becomes one JSON line: its name, grid and block, and the metrics of the
sections named below, keyed ``"Section / Metric (unit)"``.

    PYTHONPATH=. python benchmarks/probes/ncu_rows.py TASK.py CANDIDATE.py [--set K0_BW=1024] \
        [--label TEXT] [--json OUT.jsonl]

``--eager`` profiles the task's own model instead of the candidate (PyTorch's kernels, for
comparison). Needs ``ncu`` on the PATH (or under /usr/local/cuda/bin) and a runtime that lets it
read the counters; without them it says so and exits 2.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # probe_model

SECTIONS = ("SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats", "SchedulerStats",
            "MemoryWorkloadAnalysis", "MemoryWorkloadAnalysis_Tables")
CORE = ("SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats")  # the retry, should a section be unknown
STALLS = ("long_scoreboard", "lg_throttle", "mio_throttle", "barrier", "membar", "short_scoreboard", "wait",
          "math_pipe_throttle", "not_selected", "selected", "no_instruction", "drain", "branch_resolving",
          "dispatch_stall", "sleeping")
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
           *(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS))
# the few figures printed per launch (the JSON line has every metric of the sections)
SHOWN = (
    ("Duration", "us"),
    ("DRAM Throughput", "%"),
    ("Memory Throughput", "%"),
    ("Compute (SM) Throughput", "%"),
    ("Achieved Occupancy", "%"),
    ("Theoretical Occupancy", "%"),
    ("Registers Per Thread", ""),
    ("Warp Cycles Per Issued Instruction", ""),
)


def _ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/ncu", *sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))):
        if Path(candidate).exists():
            return str(candidate)
    return None


def _child(args: argparse.Namespace) -> int:
    """Build the model and inputs, warm up, then run one profiled call."""
    import torch

    from probe_model import build

    model, inputs = build(args.task, args.candidate, args.eager, args.set, "akg_ncu")
    with torch.no_grad():
        for _ in range(2):
            model(*inputs)
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        model(*inputs)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    return 0


def _parse(text: str) -> list[dict]:
    """ncu's ``--csv --page details`` output: one row per (launch, section, metric)."""
    start = text.find('"ID"')
    if start < 0:
        return []
    launches: dict[str, dict] = {}
    body = "\n".join(line for line in text[start:].splitlines() if not line.startswith("=="))  # ncu's notes
    for row in csv.DictReader(io.StringIO(body)):
        rec = launches.setdefault(row["ID"], {"id": int(row["ID"]), "kernel": row.get("Kernel Name", ""),
                                              "block": row.get("Block Size", ""), "grid": row.get("Grid Size", ""),
                                              "metrics": {}})
        unit = row.get("Metric Unit", "")
        value = row.get("Metric Value", "").replace(",", "")
        try:
            parsed: float | str = float(value)
        except ValueError:
            parsed = value
        key = f"{row.get('Section Name', '')} / {row.get('Metric Name', '')}" + (f" ({unit})" if unit else "")
        rec["metrics"][key] = parsed
    return [launches[k] for k in sorted(launches, key=int)]


def _shown(metrics: dict) -> str:
    parts = []
    for name, unit in SHOWN:
        for key, value in metrics.items():
            if key.split(" / ", 1)[-1].startswith(name + " (") or key.split(" / ", 1)[-1] == name:
                parts.append(f"{name} {value}{(' ' + unit) if unit and unit != '%' else unit}")
                break
    stalls = sorted(((v, k.split("issue_stalled_")[1].split("_per_issue")[0]) for k, v in metrics.items()
                     if "issue_stalled_" in k and isinstance(v, float)), reverse=True)
    if stalls:
        parts.append("stalls " + ", ".join(f"{name} {v:.1f}" for v, name in stalls[:4]))
    ld = [metrics.get(f"Command line profiler metrics / l1tex__t_{w}_pipe_lsu_mem_global_op_ld.sum")
          for w in ("sectors", "requests")]
    if all(isinstance(v, float) and v for v in ld):
        parts.append(f"{ld[0] / ld[1]:.1f} sectors a load request")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", help="the task's .py (Model, get_inputs, get_init_inputs)")
    ap.add_argument("candidate", nargs="?", help="a lowered candidate .py (ModelNew, module-level tunables)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a tunable's value (repeatable)")
    ap.add_argument("--eager", action="store_true", help="profile the task's own model instead of a candidate")
    ap.add_argument("--label", default="", help="a label stored with each JSON line")
    ap.add_argument("--json", metavar="OUT", help="append one JSON line per profiled launch")
    ap.add_argument("--timeout", type=int, default=300, help="seconds before the profiled run is stopped")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if not args.eager and not args.candidate:
        ap.error("give a candidate, or --eager")
    if args.child:
        return _child(args)
    ncu = _ncu()
    if ncu is None:
        print("ncu not found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute)", file=sys.stderr)
        return 2
    child = [sys.executable, str(Path(__file__).resolve()), "--child", args.task]
    if args.candidate:
        child.append(args.candidate)
    child += [x for s in args.set for x in ("--set", s)] + (["--eager"] if args.eager else [])
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", ".")}
    for sections, metrics in ((SECTIONS, METRICS), (CORE, ())):
        cmd = [ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv", "--page", "details",
               *[x for s in sections for x in ("--section", s)],
               *(["--metrics", ",".join(metrics)] if metrics else []), *child]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
        except subprocess.TimeoutExpired:
            print(f"ncu run past {args.timeout} s", file=sys.stderr)
            return 1
        launches = _parse(done.stdout)
        if launches:
            break
        print(f"ncu read nothing with sections {', '.join(sections)}: {(done.stderr or done.stdout)[-600:]}",
              file=sys.stderr)
    if done.returncode != 0 or not launches:
        tail = (done.stderr or done.stdout)[-2000:]
        print(f"ncu exited {done.returncode} with {len(launches)} launch(es) read:\n{tail}", file=sys.stderr)
        return 2 if not launches else 1
    what = "eager" if args.eager else Path(args.candidate).parent.name or Path(args.candidate).stem
    for rec in launches:
        rec.update(task=Path(args.task).stem, candidate=None if args.eager else args.candidate,
                   eager=args.eager, settings=args.set, label=args.label)
        print(f"{Path(args.task).stem} [{what}{' ' + ' '.join(args.set) if args.set else ''}] "
              f"#{rec['id']} {rec['kernel'][:60]} grid {rec['grid']} block {rec['block']}: {_shown(rec['metrics'])}",
              flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
