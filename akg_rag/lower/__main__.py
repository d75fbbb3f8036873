"""``python -m akg_rag.lower``: lower a KernelBench-format task to a generated candidate, and tune it.

    python -m akg_rag.lower TASK --dsl triton|cpp --backend cuda|cpu [--out DIR] [--verify]
                            [--json] [--sketch-only] [--cores generated|library] [--store FILE | --no-store]
                            [--tune [--tune-budget S] [--islands N] [--population N]
                                    [--generations N] [--jobs N] [--seed N] [--fresh]]
                            [--scale small|full] [--trials N] [--device cuda:1] [--verify-backend cpu]

Writes ``candidate.py``, one ``kN.sketch`` per kernel and ``report.json`` into ``--out`` (default:
``lowered/<task stem>``); ``--verify`` then runs the verifier on the candidate and prints its verdict
(``--verify-backend cpu``: a Triton candidate's correctness under Triton's interpreter, no GPU).
``--cores library`` keeps GEMM and conv cores as cuBLAS/cuDNN/oneDNN calls and generates the rest
(a partial candidate); a task without such a core, or with nothing else to generate, has no
library form (exit code 2, with the reason).
A kernel whose key is in the tuning store starts from the stored tunables (the report says so).
``--tune`` searches the kernels' tunables with the island search, each candidate verified, printing
one line per generation; ``best.py`` and ``tuning.json`` go to ``--out`` as the tune goes (run the
same command again to resume a killed tune), and the winner goes to the tuning store.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m akg_rag.lower",
                                description="Lower a PyTorch task to generated kernels through the "
                                            "Unified Sketch (capture, partition, emit, lower, assemble), "
                                            "and optionally tune their tunables on this machine.")
    p.add_argument("task", help="KernelBench-format task file (class Model, get_inputs, get_init_inputs)")
    p.add_argument("--dsl", required=True, choices=["triton", "cpp"], help="kernel language")
    p.add_argument("--backend", required=True, choices=["cuda", "cpu"], help="target device")
    p.add_argument("--out", type=Path, help="output directory (default: lowered/<task stem>)")
    p.add_argument("--verify", action="store_true", help="verify the candidate against the task")
    p.add_argument("--json", action="store_true", help="print the report (and verdict or tuning log) as JSON")
    p.add_argument("--sketch-only", action="store_true",
                   help="stop after the sketches (no backend needed); no candidate.py")
    p.add_argument("--cores", choices=["generated", "library"], default="generated",
                   help="GEMM and conv cores as generated kernels (default) or as vendor-library calls "
                        "through torch with the tail generated (a partial candidate)")
    p.add_argument("--stream", action="store_true",
                   help="Triton on CUDA: reductions over rows too long for registers that the split form would "
                        "take stream through one cooperative launch instead (off by default: no faster on an H100)")
    store = p.add_mutually_exclusive_group()
    store.add_argument("--store", type=Path, help="tuning store file (default: $AKG_RAG_TUNING_STORE, else "
                                                  "$XDG_DATA_HOME/akg-rag/tuning.json)")
    store.add_argument("--no-store", action="store_true", help="neither read nor write the tuning store")
    t = p.add_argument_group("tuning")
    t.add_argument("--tune", action="store_true", help="search the kernels' tunables (every candidate verified)")
    t.add_argument("--tune-budget", type=float, metavar="SECONDS", help="wall clock for the search")
    t.add_argument("--islands", type=int, default=2, help="islands of the search (default 2)")
    t.add_argument("--population", type=int, default=4, help="candidates per island (default 4)")
    t.add_argument("--generations", type=int,
                   help="generations after the first (default 4; until the budget ends with --tune-budget)")
    t.add_argument("--jobs", type=int, default=1, help="verifications at once (default 1: one per device)")
    t.add_argument("--seed", type=int, default=0, help="random seed of the search")
    t.add_argument("--fresh", action="store_true", help="ignore an earlier tune in --out instead of resuming it")
    v = p.add_argument_group("verification")
    v.add_argument("--scale", choices=["small", "full"], help="AKG_TASK_SCALE for lowering and verification")
    v.add_argument("--trials", type=int, default=5, help="correctness trials per candidate (default 5)")
    v.add_argument("--device", help="torch device for cuda, e.g. cuda:1")
    v.add_argument("--verify-backend", choices=["cuda", "cpu"],
                   help="verify the candidate (--verify) or the tune's candidates on this backend (cpu: "
                        "Triton under its interpreter, correctness only, nothing stored)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code (0 done, 1 verification failed, 2 error)."""
    from akg_rag.errors import AkgError

    args = _parser().parse_args(argv)
    out: Path = args.out or Path("lowered") / Path(args.task).stem
    try:
        if args.tune:
            return _tune(args, out)
        return _lower(args, out)
    except AkgError as e:
        print(f"akg_rag.lower: error: {e}", file=sys.stderr)
        return 2


def _store(args: argparse.Namespace):
    from akg_rag.lower.tuning_store import TuningStore

    return None if args.no_store else TuningStore(args.store)


def _options(args: argparse.Namespace):
    from akg_rag.verify.options import VerifyOptions

    return VerifyOptions(trials=args.trials, scale=args.scale, device=args.device, compile_baseline=False)


def _lower(args: argparse.Namespace, out: Path) -> int:
    from akg_rag.errors import ConfigError
    from akg_rag.lower.assemble import lower_task
    from akg_rag.lower.tune import task_scale
    from akg_rag.lower.tuned import StoredTuning

    store = _store(args)
    tuning = None if store is None or args.sketch_only else StoredTuning.for_backend(args.backend, store, args.device)
    with task_scale(args.scale):
        source, report = lower_task(args.task, args.dsl, args.backend, sketch_only=args.sketch_only,
                                    cores=args.cores, tuning=tuning, stream=args.stream)
    out.mkdir(parents=True, exist_ok=True)
    for k in report.kernels:
        (out / f"{k.name}.sketch").write_text(k.sketch)
    (out / "report.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    if source is not None:
        (out / "candidate.py").write_text(source)
    result: dict = {"report": report.to_dict(), "out": str(out)}
    code = 0
    if args.verify and source is not None:
        from akg_rag.verify import verify

        opts = _options(args)
        opts.compile_baseline = True
        backend = args.verify_backend or args.backend
        try:
            verdict = verify(Path(args.task), out / "candidate.py", dsl=args.dsl, backend=backend,
                             options=opts).to_dict()
        except ConfigError as e:
            if backend != "cuda" or args.dsl != "triton":
                raise
            raise ConfigError(f"{e}; here: --verify-backend cpu checks the candidate's correctness under "
                              "Triton's interpreter (slow, no timing)") from None
        result["verdict"] = verdict
        code = 0 if verdict.get("status") == "correct" else 1
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        _print_summary(result)
    return code


def _tune(args: argparse.Namespace, out: Path) -> int:
    from akg_rag.lower.tune import TuneSettings, tune_task

    settings = TuneSettings(islands=args.islands, population=args.population, generations=args.generations,
                            jobs=args.jobs, seed=args.seed, budget_s=args.tune_budget)
    stream = sys.stderr if args.json else sys.stdout
    store = _store(args)
    log = tune_task(args.task, args.dsl, args.backend, out, settings=settings, options=_options(args),
                    store=store, use_store=store is not None, fresh=args.fresh, verify_backend=args.verify_backend,
                    cores=args.cores, progress=lambda line: print(line, file=stream, flush=True))
    if args.json:
        print(json.dumps(log, indent=2, default=str))
    return 0 if log.get("best") else 1


def _print_summary(result: dict) -> None:
    from akg_rag.lower.tuned import describe

    r = result["report"]
    kinds = ", ".join(f"{k['name']}:{k['kind']}" for k in r["kernels"]) or "none"
    print(f"{r['task']} -> {result['out']}  ({r['dsl']}/{r['backend']})")
    print(f"  kernels: {kinds}")
    for k in r["kernels"]:
        if k.get("tuning", {}).get("source") == "store":
            print(f"  {k['name']}: {describe(k['tuning'])}")
    print(f"  host views: {r['views']}; torch fallbacks: {', '.join(r['fallbacks']) or 'none'}"
          f"{' (partial)' if r['partial'] else ''}")
    if r.get("library"):
        print(f"  library cores: {', '.join(r['library'])}")
    if r.get("written") or r.get("dropped"):
        print(f"  state written back: {', '.join(r.get('written') or []) or 'none'}; "
              f"state updates no output reads, dropped: {', '.join(r.get('dropped') or []) or 'none'}")
    if "verdict" in result:
        v = result["verdict"]
        print(f"  verdict: {v['status']}" + (f" (partial: {', '.join(v['partial_ops'])})" if v.get("partial") else ""))
        if v["status"] != "correct" and v.get("feedback"):
            print("  " + v["feedback"].strip().replace("\n", "\n  "))


if __name__ == "__main__":
    sys.exit(main())
