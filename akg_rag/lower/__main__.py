"""``python -m akg_rag.lower``: lower a KernelBench-format task to a generated candidate.

    python -m akg_rag.lower TASK --dsl triton|cpp --backend cuda|cpu [--out DIR] [--verify]
                            [--json] [--sketch-only] [--cores generated|library]

Writes ``candidate.py``, one ``kN.sketch`` per kernel and ``report.json`` into ``--out`` (default:
``lowered/<task stem>``); ``--verify`` then runs the verifier on the candidate and prints its verdict.
``--cores library`` keeps GEMM and conv cores as cuBLAS/cuDNN/oneDNN calls and generates the rest
(a partial candidate); a task without such a core, or with nothing else to generate, has no
library form (exit code 2, with the reason).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m akg_rag.lower",
                                description="Lower a PyTorch task to generated kernels through the "
                                            "Unified Sketch (capture, partition, emit, lower, assemble).")
    p.add_argument("task", help="KernelBench-format task file (class Model, get_inputs, get_init_inputs)")
    p.add_argument("--dsl", required=True, choices=["triton", "cpp"], help="kernel language")
    p.add_argument("--backend", required=True, choices=["cuda", "cpu"], help="target device")
    p.add_argument("--out", type=Path, help="output directory (default: lowered/<task stem>)")
    p.add_argument("--verify", action="store_true", help="verify the candidate against the task")
    p.add_argument("--json", action="store_true", help="print the report (and verdict) as JSON")
    p.add_argument("--sketch-only", action="store_true",
                   help="stop after the sketches (no backend needed); no candidate.py")
    p.add_argument("--cores", choices=["generated", "library"], default="generated",
                   help="GEMM and conv cores as generated kernels (default) or as vendor-library calls "
                        "through torch with the tail generated (a partial candidate)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code (0 done, 1 verification failed, 2 error)."""
    from akg_rag.errors import AkgError
    from akg_rag.lower.assemble import lower_task

    args = _parser().parse_args(argv)
    out: Path = args.out or Path("lowered") / Path(args.task).stem
    try:
        source, report = lower_task(args.task, args.dsl, args.backend, sketch_only=args.sketch_only,
                                    cores=args.cores)
    except AkgError as e:
        print(f"akg_rag.lower: error: {e}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    for k in report.kernels:
        (out / f"{k.name}.sketch").write_text(k.sketch)
    (out / "report.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    if source is not None:
        (out / "candidate.py").write_text(source)
    result: dict = {"report": report.to_dict(), "out": str(out)}
    code = 0
    if args.verify and source is not None:
        verdict = _verify(Path(args.task), out / "candidate.py", args.dsl, args.backend)
        result["verdict"] = verdict
        code = 0 if verdict.get("status") == "correct" else 1
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        _print_summary(result)
    return code


def _verify(task: Path, candidate: Path, dsl: str, backend: str) -> dict:
    """Run the verifier on the candidate; its result as a dict."""
    from akg_rag.verify import verify

    return verify(task, candidate, dsl=dsl, backend=backend).to_dict()


def _print_summary(result: dict) -> None:
    r = result["report"]
    kinds = ", ".join(f"{k['name']}:{k['kind']}" for k in r["kernels"]) or "none"
    print(f"{r['task']} -> {result['out']}  ({r['dsl']}/{r['backend']})")
    print(f"  kernels: {kinds}")
    print(f"  host views: {r['views']}; torch fallbacks: {', '.join(r['fallbacks']) or 'none'}"
          f"{' (partial)' if r['partial'] else ''}")
    if r.get("library"):
        print(f"  library cores: {', '.join(r['library'])}")
    if "verdict" in result:
        v = result["verdict"]
        print(f"  verdict: {v['status']}" + (f" (partial: {', '.join(v['partial_ops'])})" if v.get("partial") else ""))
        if v["status"] != "correct" and v.get("feedback"):
            print("  " + v["feedback"].strip().replace("\n", "\n  "))


if __name__ == "__main__":
    sys.exit(main())
