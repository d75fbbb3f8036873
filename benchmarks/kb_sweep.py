"""Sweep shrunken KernelBench problems through the lowering on this CPU: lower, verify, summarise.

    # 1. shrink (benchmarks/kb_shrink.py), outside the repository
    python benchmarks/kb_shrink.py PATH/TO/KernelBench /tmp/kbs
    # 2. lower and verify every problem, per level and target; resumable (JSON lines per problem)
    nice python benchmarks/kb_sweep.py run /tmp/kbs /tmp/kbsweep --targets cpp triton
    # 3. counts per level and target, and the failures with their first feedback line
    python benchmarks/kb_sweep.py report /tmp/kbsweep [--markdown OUT.md]

Targets: ``cpp`` lowers with ``--dsl cpp --backend cpu`` and verifies on the CPU; ``triton``
lowers with ``--dsl triton --backend cuda`` and verifies with the verifier's CPU backend, which runs
the candidate under ``TRITON_INTERPRET=1`` (correctness only, as tests/lower/test_suite_tasks.py
does). Verification is correctness only (``timing=False``, no ``torch.compile`` baseline), with
``--trials`` fresh input draws (default 2). Each (level, target) appends to
``RESULTS/level{N}_{target}.jsonl`` through ``benchmarks/lower_suite.py``; a rerun skips the
problems already there.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lower_suite  # noqa: E402

TARGETS = {"cpp": ("cpp", "cpu", "cpu"), "triton": ("triton", "cuda", "cpu")}


def run(args: argparse.Namespace) -> int:
    """Lower and verify every (level, target) not yet in its results file."""
    for target in args.targets:
        dsl, backend, verify_backend = TARGETS[target]
        for level in args.levels:
            root = Path(args.problems) / f"level{level}"
            if not root.is_dir():
                print(f"no {root}: skipped", flush=True)
                continue
            results = Path(args.results) / f"level{level}_{target}.jsonl"
            ns = suite_args(dsl=dsl, backend=backend, verify_backend=verify_backend, root=str(root),
                            results=str(results), out=str(Path(args.results) / f"level{level}_{target}"),
                            tasks=args.only, jobs=args.jobs, trials=args.trials, timeout=args.timeout,
                            no_timing=True, no_compile=True, quiet=True)
            print(f"== level{level} {target}", flush=True)
            lower_suite.run(ns)
    return 0


def suite_args(**given) -> argparse.Namespace:
    """lower_suite's options at their defaults, with ``given`` set (a new suite option cannot be
    missing here)."""
    ns = lower_suite.parser().parse_args([])
    for key, value in given.items():
        if not hasattr(ns, key):
            raise AttributeError(f"lower_suite has no option {key!r}")
        setattr(ns, key, value)
    return ns


def _number(name: str) -> int:
    head = name.split("_", 1)[0]
    return int(head) if head.isdigit() else 10**6


def summarise(results: Path) -> tuple[list[dict], list[dict]]:
    """(counts per level and target, failing rows) of the results folder."""
    counts, failures = [], []
    for path in sorted(results.glob("level*_*.jsonl")):
        level, target = path.stem.split("_", 1)
        rows = lower_suite.done(path)
        statuses: dict[str, int] = {}
        for r in rows.values():
            statuses[r.get("status", "?")] = statuses.get(r.get("status", "?"), 0) + 1
        counts.append({"level": level, "target": target, "problems": len(rows),
                       "correct": statuses.get("correct", 0),
                       "partial": sum(bool(r.get("partial")) for r in rows.values() if r.get("status") == "correct"),
                       "statuses": statuses})
        for name in sorted(rows, key=_number):
            r = rows[name]
            if r.get("status") != "correct":
                lines = [ln.strip() for ln in (r.get("feedback") or "").splitlines() if ln.strip()]
                # a heading line ("guard violations (...):") says less than the line under it
                first = lines[1] if len(lines) > 1 and lines[0].endswith(":") else (lines or [""])[0]
                failures.append({"level": level, "target": target, "problem": name,
                                 "status": r.get("status"), "feedback": first[:160]})
    return counts, failures


def report(args: argparse.Namespace) -> int:
    """Print (and optionally write as markdown) the counts and the failures."""
    counts, failures = summarise(Path(args.results))
    lines = ["| level | target | problems | correct | partial | other statuses |",
             "| --- | --- | --- | --- | --- | --- |"]
    for c in counts:
        other = ", ".join(f"{k} {v}" for k, v in sorted(c["statuses"].items()) if k != "correct") or "-"
        lines.append(f"| {c['level']} | {c['target']} | {c['problems']} | {c['correct']} | {c['partial']} | {other} |")
    lines += ["", "| level | target | problem | status | first feedback line |", "| --- | --- | --- | --- | --- |"]
    for f in failures:
        fb = f["feedback"].replace("|", "\\|")
        lines.append(f"| {f['level']} | {f['target']} | {f['problem']} | {f['status']} | {fb} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.json:
        print(json.dumps({"counts": counts, "failures": failures}, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``run`` or ``report`` (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="lower and verify the shrunken problems (resumable)")
    r.add_argument("problems", help="the output folder of kb_shrink.py (holding level1/, level2/)")
    r.add_argument("results", help="folder for the JSON-lines results and the candidates")
    r.add_argument("--levels", nargs="+", type=int, default=[1, 2])
    r.add_argument("--targets", nargs="+", choices=sorted(TARGETS), default=["cpp", "triton"])
    r.add_argument("--only", nargs="+", default=None, help="fnmatch patterns on problem names")
    r.add_argument("--jobs", type=int, default=1, help="verifications at once")
    r.add_argument("--trials", type=int, default=2, help="correctness trials per problem")
    r.add_argument("--timeout", type=float, default=600.0, help="seconds per verification")
    s = sub.add_parser("report", help="counts and failures of a results folder")
    s.add_argument("results")
    s.add_argument("--markdown", default=None, help="also write the tables here")
    s.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    return run(args) if args.cmd == "run" else report(args)


if __name__ == "__main__":
    sys.exit(main())
