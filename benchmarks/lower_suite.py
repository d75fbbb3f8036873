"""The lowering suite (benchmarks/tasks): lower every task, verify the candidate, print the figures.

    # here: C++ on the CPU at small shapes (each candidate builds once, ~25 s on 2 cores)
    PYTHONPATH=. python benchmarks/lower_suite.py --dsl cpp --backend cpu --scale small \\
        --results results/suite_cpp_cpu.jsonl --jobs 2 --no-timing
    # the GPU box (torch + triton only): Triton at full scale, timed against eager and torch.compile
    PYTHONPATH=. python benchmarks/lower_suite.py --dsl triton --backend cuda --results R/suite_triton.jsonl
    # Triton without a GPU: the candidate runs under the interpreter (correctness only)
    PYTHONPATH=. python benchmarks/lower_suite.py --dsl triton --backend cuda --verify-backend cpu \\
        --scale small --no-timing --results R/suite_triton_interp.jsonl
    # the library form (GEMM/conv cores as cuBLAS/cuDNN calls, tails generated) of the core tasks
    PYTHONPATH=. python benchmarks/lower_suite.py --dsl triton --backend cuda --cores library \
        --tasks 'gemm_*' 'conv*' --results R/suite_triton_library.jsonl
    # figures of finished runs only
    python benchmarks/lower_suite.py --report R/suite_cpp_cpu.jsonl [--markdown OUT.md] [--json]

One JSON line per task is appended to ``--results`` as soon as it is known; a rerun skips the
tasks already there (a line cut by a kill is ignored, so that task runs again). Lowering runs in
this process (it only traces on meta tensors); verification runs in the verifier's sandboxed
children, ``--jobs`` at a time. Candidates and lowering reports are written under ``--out``.

Figures (benchmarks/figures.py): correct, partial (the lowering left some op to torch or the
verifier saw torch compute), fast_1, and geometric means over eager and torch.compile in which a
failure counts as 1.0x; per family (the task file's prefix) and for the whole suite.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # figures.py, when imported by path
from figures import HEADER, figures_line, render_table, result_row, score, table_row  # noqa: E402

SUITE = Path(__file__).resolve().parent / "tasks"
# file-name prefixes of the families, in the README's order ("conv" covers conv1d_, conv_transpose...)
FAMILIES = ("pw", "red", "norm", "loss", "scan", "pool", "gemm", "conv")


def suite_tasks(patterns: list[str] | None = None, root: Path = SUITE) -> list[Path]:
    """The suite's task files, sorted; ``patterns`` (fnmatch on the stem) select a subset."""
    tasks = sorted(p for p in root.glob("*.py") if not p.name.startswith("_"))
    if patterns:
        tasks = [p for p in tasks if any(fnmatch.fnmatch(p.stem, pat) for pat in patterns)]
    return tasks


def family(stem: str) -> str:
    """The family of a task from its file name: ``red_std_rows`` -> ``red``."""
    for f in FAMILIES:
        if stem == f or stem.startswith(f + "_") or (f == "conv" and stem.startswith("conv")):
            return f
    return "other"


def done(results: Path) -> dict[str, dict]:
    """Rows already in a results file, by task name (unparseable lines are skipped)."""
    rows: dict[str, dict] = {}
    if results.is_file():
        for line in results.read_text().splitlines():
            try:
                row = json.loads(line)
                rows[row["problem"]] = row
            except (ValueError, KeyError, TypeError):
                continue
    return rows


def _append(results: Path, row: dict) -> None:
    with results.open("a") as f:
        f.write(json.dumps(row, default=str) + "\n")


def _scale_env(scale: str | None) -> None:
    """Tasks read AKG_TASK_SCALE at import: lowering captures the shapes of the verified scale."""
    if scale is None:
        os.environ.pop("AKG_TASK_SCALE", None)
    else:
        os.environ["AKG_TASK_SCALE"] = scale


def lower_one(task: Path, dsl: str, backend: str, out: Path,
              cores: str = "generated") -> tuple[str | None, dict]:
    """Lower one task; (candidate source or None, the lowering part of its row). In library mode a
    task without a library form gives (None, {"no_library_form": why})."""
    from akg_rag.lower.assemble import NoLibraryForm, lower_task

    started = time.monotonic()
    folder = out / task.stem
    folder.mkdir(parents=True, exist_ok=True)
    try:
        source, report = lower_task(task, dsl, backend, cores=cores)
    except NoLibraryForm as e:
        return None, {"no_library_form": str(e)}
    except Exception as e:  # noqa: BLE001 - a task the lowering cannot take is a figure, not a crash
        info = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=6)}
        (folder / "lowering.json").write_text(json.dumps(info, indent=1))
        return None, {"lower_s": round(time.monotonic() - started, 3), "lower_error": info["error"]}
    (folder / "candidate.py").write_text(source)
    (folder / "lowering.json").write_text(json.dumps(report.to_dict(), indent=1, default=str))
    return source, {"lower_s": round(time.monotonic() - started, 3),
                    "kernels": [k.kind for k in report.kernels], "fallbacks": list(report.fallbacks),
                    "library": list(report.library), "lower_partial": bool(report.partial)}


def run(args: argparse.Namespace) -> int:
    """Lower and verify every selected task not yet in the results file."""
    from akg_rag.verify.executor import LocalExecutor, make_job
    from akg_rag.verify.result import VerifyResult

    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    out = Path(args.out) if args.out else results.with_suffix("")
    seen = done(results)
    root = Path(args.root) if getattr(args, "root", None) else SUITE
    pending = [t for t in suite_tasks(args.tasks, root) if t.stem not in seen]
    verify_backend = args.verify_backend or args.backend
    options = {"scale": args.scale, "trials": args.trials, "timeout_s": args.timeout,
               "timing": not args.no_timing, "compile_baseline": not args.no_compile}
    if args.device:
        options["device"] = args.device
    print(f"{len(pending)} task(s) to run, {len(seen)} already in {results}", flush=True)
    _scale_env(args.scale)
    jobs, heads = [], []
    for task in pending:
        kind = "library" if args.cores == "library" else "lowered"
        head = {"problem": task.stem, "family": family(task.stem), "kind": kind, "dsl": args.dsl,
                "backend": args.backend, "verify_backend": verify_backend, "scale": args.scale or "full"}
        source, lowering = lower_one(task, args.dsl, args.backend, out, args.cores)
        if "no_library_form" in lowering:  # not a figure of this mode: skipped, not a failure
            print(f"{task.stem}: no library form", flush=True)
            continue
        head.update(lowering)
        if source is None:
            row = {**head, "status": "lower_error", "feedback": lowering["lower_error"][:1500]}
            _append(results, row)
            print(f"{task.stem}: lower_error {lowering['lower_error'].splitlines()[0][:100]}", flush=True)
            continue
        jobs.append(make_job(str(task), candidate_source=source, dsl=args.dsl, backend=verify_backend,
                             options=options))
        heads.append(head)
    deadline = time.monotonic() + args.budget if args.budget else None
    for i, result in LocalExecutor(jobs=args.jobs).imap(jobs):
        head = heads[i]
        if isinstance(result, VerifyResult):
            row = {**head, **result_row(result)}
            row["partial"] = row["partial"] or head.get("lower_partial", False)
        else:  # AkgError: the task itself did not load or run in the child
            row = {**head, "status": "task_error", "feedback": f"{type(result).__name__}: {result}"[:1500]}
        _append(results, row)
        sp = row.get("speedup_eager")
        print(f"{head['problem']}: {row['status']}" + (" (partial)" if row.get("partial") else "")
              + (f" {sp:.2f}x eager" if isinstance(sp, (int, float)) else ""), flush=True)
        if deadline and time.monotonic() > deadline:
            print("budget reached; rerun to continue", flush=True)
            return 0
    return report(args) if not args.quiet else 0


def summary(rows: dict[str, dict]) -> tuple[list[list[str]], dict]:
    """Per-task table rows and figures per family and for the whole suite."""
    table = [list(HEADER)]
    groups: dict[str, list[dict]] = {}
    for name in sorted(rows, key=lambda k: (FAMILIES.index(family(k)) if family(k) in FAMILIES else 99, k)):
        r = rows[name]
        groups.setdefault(family(name), []).append(r)
        table.append(table_row(name, r))
    figures = {f: score(groups[f]) for f in list(FAMILIES) + ["other"] if f in groups}
    figures["suite"] = score([r for g in groups.values() for r in g])
    return table, figures


def report(args: argparse.Namespace) -> int:
    """Print (and optionally write) the per-task table and the figures of the results files."""
    rows: dict[str, dict] = {}
    for p in ([args.results] if args.results else []) + list(args.report or []):
        rows.update(done(Path(p)))
    if not rows:
        print("no results yet")
        return 0
    table, figures = summary(rows)
    text = "\n".join(figures_line(name, f) for name, f in figures.items())
    print(render_table(table))
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(f"{text}\n\n{render_table(table)}\n")
    if args.json:
        print(json.dumps(figures, indent=1))
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line (kb_sweep.py builds its runs from the same options and defaults)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--dsl", default="cpp", choices=["cpp", "triton"], help="kernel language")
    p.add_argument("--backend", default="cpu", choices=["cpu", "cuda"], help="target of the lowering")
    p.add_argument("--verify-backend", default=None,
                   help="backend the verifier runs (default: --backend; 'cpu' with --dsl triton runs "
                        "the Triton interpreter)")
    p.add_argument("--scale", default=None, choices=["small", "full"],
                   help="AKG_TASK_SCALE for lowering and verification (default: unset = full)")
    p.add_argument("--results", help="JSON-lines results file (appended; done tasks are skipped)")
    p.add_argument("--out", default=None, help="candidates and lowering reports (default: next to --results)")
    p.add_argument("--root", default=None, help="folder of task files (default: benchmarks/tasks)")
    p.add_argument("--tasks", nargs="+", default=None, help="fnmatch patterns on task names, e.g. 'gemm_*'")
    p.add_argument("--cores", default="generated", choices=["generated", "library"],
                   help="GEMM/conv cores generated (default) or library calls with the tail generated; in "
                        "library mode tasks without a library form are skipped")
    p.add_argument("--jobs", type=int, default=1, help="verifications at once (1 for trustworthy timing)")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per verification (build included)")
    p.add_argument("--device", default=None, help="torch device for cuda, e.g. cuda:1")
    p.add_argument("--no-timing", action="store_true", help="correctness only")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile baseline")
    p.add_argument("--budget", type=float, default=None, help="stop after this many seconds (rerun resumes)")
    p.add_argument("--report", nargs="*", default=None, help="only print the figures of these results files")
    p.add_argument("--markdown", default=None, help="also write the figures and table here")
    p.add_argument("--json", action="store_true", help="also print the figures as JSON")
    p.add_argument("--quiet", action="store_true", help="no table at the end of a run")
    return p


def main(argv: list[str] | None = None) -> int:
    """Parse the command line; run the suite, or only report with ``--report``."""
    p = parser()
    args = p.parse_args(argv)
    if args.report is not None:
        return report(args)
    if not args.results:
        p.error("--results is required to run the suite")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
