"""``akg-rag bench TASKS_DIR CANDIDATES_DIR --dsl D --backend B``: verify and time a whole set.

Prints a per-task table, fast_p and geometric-mean speedups; ``--report DIR`` also writes
results.json, report.md and speedups.png. The exit code is 0 when every task has a correct candidate.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from akg_rag.cli.executors import add_executor_arguments, executor_from_args
from akg_rag.cli.verify import add_common_arguments, options_from_args


def register(subparsers: Any) -> None:
    """Add the ``bench`` subcommand."""
    p = subparsers.add_parser(
        "bench", help="verify and time every candidate of a directory",
        description="Tasks are TASKS_DIR/NAME.py or TASKS_DIR/NAME/task.py; candidates are "
                    "CANDIDATES_DIR/NAME.py or CANDIDATES_DIR/NAME/{dsl}_{backend}.py. A missing "
                    "candidate counts as a failure in fast_p.")
    p.add_argument("tasks_dir", help="directory of tasks")
    p.add_argument("candidates_dir", help="directory of candidates (may be the same directory)")
    add_common_arguments(p)
    p.add_argument("--jobs", type=int, default=1,
                   help="verifications in parallel (default 1; more distorts CPU timings)")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="write results.json, report.md and speedups.png here")
    p.add_argument("--only", nargs="*", default=None, metavar="NAME", help="bench only these task names")
    p.add_argument("--resume", action="store_true",
                   help="with --report: keep the results of DIR/results.json (an earlier run of the same "
                        "dsl, backend, scale and trials, complete or cut short) whose task and candidate "
                        "files are unchanged and that are correct (and timed, when timing); run the rest")
    p.add_argument("--candidate-stem", default=None, metavar="STEM",
                   help="candidate file name in a folder layout (default {dsl}_{backend}); e.g. "
                        "--dsl triton --backend cpu --candidate-stem triton_cuda runs CUDA Triton "
                        "kernels under the interpreter")
    add_executor_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``akg-rag bench``."""
    from akg_rag.errors import ConfigError
    from akg_rag.verify.bench import discover, format_summary, format_table, run_bench, summarize, table_rows

    items = discover(args.tasks_dir, args.candidates_dir, args.dsl, args.backend, args.candidate_stem)
    if args.only:
        unknown = set(args.only) - {it.name for it in items}
        if unknown:
            raise ConfigError(f"--only names not found: {sorted(unknown)}; tasks: {[it.name for it in items]}")
        items = [it for it in items if it.name in args.only]
    opts = options_from_args(args)
    meta = {"dsl": args.dsl, "backend": args.backend, "scale": args.scale or "default",
            "tasks_dir": args.tasks_dir, "candidates_dir": args.candidates_dir, "trials": args.trials}
    if args.resume:
        if not args.report:
            raise ConfigError("--resume needs --report DIR: it resumes DIR/results.json")
        from pathlib import Path

        from akg_rag.verify.bench import resume

        previous = Path(args.report) / "results.json"
        if previous.is_file():
            try:
                kept = resume(items, json.loads(previous.read_text()), meta, opts.timing)
            except ValueError as e:
                raise ConfigError(f"--resume: {previous} is not a bench results file: {e}") from None
            print(f"resumed {len(kept)} of {len(items)} tasks from {previous}"
                  + (f": {', '.join(kept)}" if kept else " (none reusable)"), file=sys.stderr)
    save_partial = None
    if args.report:
        from pathlib import Path

        partial = Path(args.report) / "results.json"
        partial.parent.mkdir(parents=True, exist_ok=True)

        def save_partial(_item: Any) -> None:
            # overwritten after every verdict, so an interrupted bench still leaves its results
            partial.write_text(json.dumps({"meta": {**meta, "partial": True},
                                           "tasks": [it.to_dict() for it in items]}, indent=1))

    run_bench(items, args.dsl, args.backend, opts, executor_from_args(args, jobs=args.jobs), progress=not args.json,
              on_result=save_partial)
    summary = summarize(items)
    files = None
    if args.report:
        from akg_rag.verify.report import write_report

        files = write_report(args.report, items, summary, meta)
    if args.json:
        print(json.dumps({"meta": meta, "summary": summary.to_dict(), "tasks": [it.to_dict() for it in items],
                          "report": files}, indent=2))
    else:
        print(format_table(table_rows(items)))
        print()
        print(format_summary(summary))
        if files:
            print("report: " + ", ".join(files.values()))
    return 0 if summary.n_correct == summary.n_tasks else 1
