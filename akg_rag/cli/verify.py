"""``akg-rag verify TASK CANDIDATE --dsl D --backend B``: verify one kernel candidate.

Prints the verdict, the feedback a coder needs and the timings (or JSON with ``--json``); the exit
code is 0 only for a correct candidate. Nothing heavy is imported until the command runs.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_common_arguments(p: argparse.ArgumentParser) -> None:
    """Target, protocol and output flags shared by ``verify`` and ``bench``."""
    from akg_rag.dsl import BACKENDS, DSLS

    p.add_argument("--dsl", required=True, choices=DSLS, help="DSL of the candidate kernels")
    p.add_argument("--backend", required=True, choices=BACKENDS, help="where the kernels run")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--trials", type=int, default=5, help="correctness trials with fresh inputs (default 5)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="wall-clock limit per candidate in seconds, build included (default 300)")
    p.add_argument("--scale", choices=("small", "full"), default=None,
                   help="AKG_TASK_SCALE for the project's tasks: small shapes for a CPU, full for a GPU")
    p.add_argument("--no-timing", action="store_true", help="check correctness only")
    p.add_argument("--no-compile-baseline", action="store_true",
                   help="skip timing torch.compile of the reference (slow to compile on CPU)")
    p.add_argument("--runs", type=int, default=None, help="timed runs (default: as many as fit ~1 s)")
    p.add_argument("--memory-mb", type=int, default=None, help="memory cap of the child process")
    p.add_argument("--device", default=None, help="torch device for cuda backends, e.g. cuda:1")
    p.add_argument("--cache-dir", default=None,
                   help="extension build cache root (default $AKG_RAG_CACHE_DIR or ~/.cache/akg-rag)")
    p.add_argument("--profile", action="store_true",
                   help="after timing, record the profiler's kernel list of the candidate (per call)")
    p.add_argument("--timing-budget", type=float, default=1.0, metavar="S",
                   help="seconds of timed runs per measured function when --runs is unset (default 1)")


def options_from_args(args: argparse.Namespace) -> Any:
    """VerifyOptions from the parsed common flags."""
    from akg_rag.verify.options import VerifyOptions

    return VerifyOptions(trials=args.trials, timeout_s=args.timeout, scale=args.scale,
                         timing=not args.no_timing, compile_baseline=not args.no_compile_baseline,
                         runs=args.runs, memory_mb=args.memory_mb, device=args.device,
                         cache_dir=args.cache_dir, profile=args.profile,
                         timing_budget_s=args.timing_budget)


def register(subparsers: Any) -> None:
    """Add the ``verify`` subcommand."""
    p = subparsers.add_parser(
        "verify", help="verify one kernel candidate against its task",
        description="Run a candidate (ModelNew) against a KernelBench-format task in a sandboxed "
                    "child process: correctness on several trials, guards, and timing against eager "
                    "and torch.compile. Exit code 0 only when correct.")
    p.add_argument("task", help="task file (Model, get_inputs, get_init_inputs)")
    p.add_argument("candidate", help="candidate file (ModelNew)")
    add_common_arguments(p)
    p.set_defaults(func=run)


def format_result(r: Any) -> str:
    """Human-readable verdict: status, feedback, guards, timings."""
    lines = [f"status: {r.status}" + ("  (flagged for review)" if r.review else "")]
    if r.feedback:
        lines += ["feedback:"] + [f"  {ln}" for ln in r.feedback.splitlines()]
    for b in r.builds:
        lines.append(f"build: {b['name']} {'cached' if b['cached'] else 'compiled'} in {b['seconds']:.2f} s")
    t = r.timings
    if t is not None and t.candidate_ms is not None:
        def ms(v: float | None) -> str:
            return "-" if v is None else f"{v:.4g} ms"

        def iqr(v: float | None) -> str:
            return "" if v is None else f" (IQR {v:.2g})"

        how = f"{t.method or 'clock'}, median of {t.runs} runs, {t.warmup} warm-up"
        if t.blocks:
            how += f", interleaved with eager in {t.blocks} blocks"
        lines.append(f"timings on {t.device} ({how}):" + ("" if t.meaningful else "  NOT MEANINGFUL (interpreter)"))
        lines.append(f"  candidate {ms(t.candidate_ms)}{iqr(t.candidate_iqr_ms)}   eager {ms(t.eager_ms)}"
                     f"{iqr(t.eager_iqr_ms)}   torch.compile {ms(t.compile_ms) if t.compile_ms else t.compile_status}")
        if t.speedup_eager:
            conf = f" ({t.confidence:.0%} intervals)" if t.confidence else ""
            sc = f"; {t.speedup_text('compile')}" if t.speedup_compile else ""
            lines.append(f"  speedup: {t.speedup_text('eager')}{sc}{conf}")
        if t.graph_method:
            lines.append(f"  {t.graph_method} replays: candidate {ms(t.graph_candidate_ms)}   eager "
                         f"{ms(t.graph_eager_ms)}   {t.graph_speedup_eager:.3g}x "
                         f"[{t.graph_speedup_eager_low:.3g}-{t.graph_speedup_eager_high:.3g}]")
        elif t.graph_error:
            lines.append(f"  cuda_graph timing unavailable: {t.graph_error}")
        if t.achieved_gbps or t.achieved_tflops:
            frac = f", {t.roofline_fraction * 100:.1f}% of roofline" if t.roofline_fraction else ""
            lines.append(f"  achieved {t.achieved_gbps or 0:.3g} GB/s, {t.achieved_tflops or 0:.3g} TFLOP/s{frac}")
    if r.profile:
        lines.append("profile (per call, most expensive first):")
        lines += [f"  {k['time_us']:10.2f} us  x{k['count']:g}  {k['name'][:90]}" for k in r.profile[:8]]
    lines.append(f"wall time {r.wall_s:.1f} s")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Handler of ``akg-rag verify``."""
    from akg_rag.cli.checks import check_task_file, require_gpu

    check_task_file(args.task)  # before torch loads: a missing or broken task is told at once
    require_gpu(args.backend, "verify")
    from akg_rag.verify.runner import verify

    result = verify(args.task, args.candidate, dsl=args.dsl, backend=args.backend,
                    options=options_from_args(args))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(format_result(result))
    return 0 if result.ok else 1
