"""KernelBench levels 1 and 2 through akg-rag: generate candidates, verify them, summarise.

KernelBench is measured against, never shipped: pass the path of a checkout of the public
repository (its ``KernelBench/level1`` ... folders). Three steps, resumable, each printing figures:

    # 1. candidates (any machine; --reuse needs the knowledge base, so run it where chromadb is):
    #    lowered.py (every kernel generated) and, for a task with a GEMM or conv core and something
    #    else to generate, library.py (the cores stay cuBLAS/cuDNN calls, the tail is generated)
    python benchmarks/kernelbench.py prepare KB --levels 1 2 --dsl triton --backend cuda --out C
    python benchmarks/kernelbench.py prepare KB --levels 1 2 --dsl triton --backend cuda --out C --reuse

    # 2. verification (the GPU box: torch + triton only); --shard i/n splits the problems, one
    #    process per GPU; results are appended per problem, a rerun skips what is done
    PYTHONPATH=. python benchmarks/kernelbench.py run KB C --levels 1 --results R/l1.jsonl [--shard 0/2]
    PYTHONPATH=. python benchmarks/kernelbench.py run KB C --levels 2 --kinds lowered library --results R/l2.jsonl

    # 2b. before GPU time: compile every candidate's launches for sm_90 on any machine (meta
    #     tensors of the full shapes; registers, spills, vectorised loads), resumable
    python benchmarks/kernelbench.py offline KB C --levels 1 2 --results R/offline.jsonl

    # 2c. the torch.compile baseline without candidates (compiles N problems at once on the CPU,
    #     times one at a time): eager vs compiled per problem, resumable
    PYTHONPATH=. python benchmarks/kernelbench.py baselines KB --levels 2 --results R/compile.jsonl --jobs 8

    # 3. figures: correct, partial, fast_1, geometric means (a failure counts as 1.0x); with
    #    --baselines, a row timed without compile gets speedup_eager x compile_ms / eager_ms
    python benchmarks/kernelbench.py report R/*.jsonl --mode lower|normal [--baselines R/compile.jsonl]

    # 4. repeatability: run the same candidates twice into two files, then per problem the change
    python benchmarks/kernelbench.py repeat R/first.jsonl R/second.jsonl [--tolerance 0.05]

Modes: ``lower`` scores the faster correct one of the two lowering-only candidates (``lowered.py``
and ``library.py``: no stored kernel); ``normal`` scores the faster correct one of every kind,
the reused candidate (``reused.py``, a stored kernel adapted) included, as ``akg-rag generate``
keeps the fastest. A library candidate is partial (torch computes its cores): the figures count
partial winners apart, and how many problems the library form won.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # figures.py, when imported by path
from figures import result_row  # noqa: E402
import compile_baseline  # noqa: E402
# the report side lives in kb_report.py; its names are this script's too (tests and callers use both)
from kb_report import COPY_GBPS, KINDS, _load, _pick, _rows, repeat, repeat_rows, report, summary  # noqa: E402,F401


def _problems(kb: Path, level: int) -> list[Path]:
    root = kb / f"level{level}" if (kb / f"level{level}").is_dir() else kb / "KernelBench" / f"level{level}"
    if not root.is_dir():
        raise SystemExit(f"no level{level} folder under {kb}: pass the KernelBench checkout (or its KernelBench/ folder)")

    return sorted((p for p in root.glob("*.py") if not p.name.startswith("_")), key=_number)


def _number(task: Path) -> int:
    """A KernelBench problem's number, from its file name (``36_RMSNorm_.py`` -> 36)."""
    head = task.stem.split("_", 1)[0]
    return int(head) if head.isdigit() else 10**6


# ---- prepare ---------------------------------------------------------------------------------

def prepare(args: argparse.Namespace) -> int:
    """Write lowered and library (or, with --reuse, reused) candidates for every problem."""
    from akg_rag.lower.assemble import lower_task

    kb, out = Path(args.kb), Path(args.out)
    store = _reuse_context(args) if args.reuse else None
    n_ok = n_fail = 0
    for level in args.levels:
        for task in _problems(kb, level):
            if args.problems and _number(task) not in args.problems:
                continue
            folder = out / f"level{level}" / task.stem
            folder.mkdir(parents=True, exist_ok=True)
            started = time.monotonic()
            if args.reuse:
                _prepare_reused(task, folder, args, store)
                continue
            try:
                source, report = lower_task(task, args.dsl, args.backend, stream=args.stream)
                (folder / "lowered.py").write_text(source)
                info = report.to_dict()
                n_ok += 1
            except Exception as e:  # noqa: BLE001 - one problem's failure is a figure, not a crash
                info = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=4)}
                (folder / "lowered.py").unlink(missing_ok=True)
                n_fail += 1
            info["seconds"] = round(time.monotonic() - started, 3)
            (folder / "lowered.json").write_text(json.dumps(info, indent=1, default=str))
            status = "ok" if "error" not in info else "FAILED " + info["error"].splitlines()[0][:100]
            status += "; library: " + _prepare_library(task, folder, args)
            print(f"level{level} {task.stem}: {status}", flush=True)
    if not args.reuse:
        print(f"lowered {n_ok}, failed {n_fail}")
    return 0


def _prepare_library(task: Path, folder: Path, args: argparse.Namespace) -> str:
    """Write ``library.py`` (cores as library calls, tail generated) and ``library.json``; a task with
    no library form gets only the json, saying why. Returns a one-word status for the log."""
    from akg_rag.lower.assemble import NoLibraryForm, lower_task

    started = time.monotonic()
    status = "ok"
    try:
        source, report = lower_task(task, args.dsl, args.backend, cores="library")
        (folder / "library.py").write_text(source)
        info = report.to_dict()
    except NoLibraryForm as e:
        info, status = {"none": str(e)}, "none"
    except Exception as e:  # noqa: BLE001 - one problem's failure is a figure, not a crash
        info, status = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=4)}, "FAILED"
    if "none" in info or "error" in info:
        (folder / "library.py").unlink(missing_ok=True)
    info["seconds"] = round(time.monotonic() - started, 3)
    (folder / "library.json").write_text(json.dumps(info, indent=1, default=str))
    return status


def _reuse_context(args: argparse.Namespace):  # pragma: no cover - needs the knowledge layer
    from akg_rag.embedding import make_embedder
    from akg_rag.retrieval.pipeline import Retriever
    from akg_rag.store import make_store

    store = make_store(data_dir=args.data_dir)
    return Retriever(store, make_embedder())


def _prepare_reused(task: Path, folder: Path, args: argparse.Namespace, retriever) -> None:  # pragma: no cover
    from akg_rag.analysis import analyze_task
    from akg_rag.graph.adapt import pick_and_adapt

    info: dict = {}
    try:
        analysis = analyze_task(task)
        from akg_rag.graph.retrieve import kernel_hit_to_dict

        result = retriever.search_task(analysis, dsl=args.dsl, backend=args.backend,
                                       op_type=analysis.op_type, k=8, docs=0)
        hits = [kernel_hit_to_dict(h) for h in result.hits]
        adapted, skipped = pick_and_adapt(task.read_text(), analysis.to_dict(), hits, [])
        if adapted is not None:
            (folder / "reused.py").write_text(adapted.code)
            info = {"hit": adapted.hit_id, "note": adapted.note}
        else:
            info = {"none": "; ".join(skipped)}
    except Exception as e:  # noqa: BLE001
        info = {"error": f"{type(e).__name__}: {e}"}
    (folder / "reused.json").write_text(json.dumps(info, indent=1, default=str))
    print(f"{folder.parent.name} {task.stem}: {'reused ' + info['hit'] if 'hit' in info else 'no reuse'}", flush=True)


# ---- run -------------------------------------------------------------------------------------

def _done(results: Path) -> set[tuple[str, str]]:
    return {(row["problem"], row["kind"]) for row in _rows(results)}


def _selected(path: str | None) -> set[str] | None:
    """Problems whose row in a prior results file is ``correct`` (``--only-correct``), or None."""
    if not path:
        return None
    if not Path(path).is_file():
        raise SystemExit(f"--only-correct: no results file {path}")
    return {row["problem"] for row in _rows(path) if row.get("status") == "correct"}


def _jobs(args: argparse.Namespace) -> list[tuple[str, str, int, Path, Path]]:
    """(key, kind, level, task, candidate) of this shard that the results file does not hold yet."""
    kb, cands = Path(args.kb), Path(args.candidates)
    shard, shards = (int(x) for x in args.shard.split("/"))
    done, only = _done(Path(args.results)), _selected(args.only_correct)
    todo = []
    for level in args.levels:
        for i, task in enumerate(_problems(kb, level)):
            key = f"level{level}/{task.stem}"
            if i % shards != shard or (only is not None and key not in only):
                continue
            if args.problems and _number(task) not in args.problems:
                continue
            kinds = args.kinds
            if getattr(args, "first_kind", False):  # the first kind this problem has a candidate of
                kinds = [k for k in kinds if (cands / f"level{level}" / task.stem / f"{k}.py").is_file()][:1] or kinds[:1]
            for kind in kinds:
                if (key, kind) not in done:
                    todo.append((key, kind, level, task, cands / f"level{level}" / task.stem / f"{kind}.py"))
    return todo


def run(args: argparse.Namespace) -> int:
    """Verify every candidate of the selected levels (this shard), appending one line each.

    ``--jobs N`` verifies N candidates at once; concurrent runs share the device, so their timings
    would mean nothing: with N > 1 timing is off (a correctness sweep), and a later ``--jobs 1`` run
    with ``--only-correct`` times the correct ones."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from akg_rag.task import source_hash
    from akg_rag.verify import VerifyOptions, verify

    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    timing = not args.no_timing and args.jobs == 1
    opts = VerifyOptions(trials=args.trials, timeout_s=args.timeout, device=args.device, timing=timing,
                         compile_baseline=timing and not args.no_compile, profile=False)
    deadline = time.monotonic() + args.budget if args.budget else None
    todo = _jobs(args)
    print(f"{len(todo)} candidates to verify ({args.jobs} at a time, timing {'on' if timing else 'off'})",
          flush=True)
    if timing and args.backend == "cuda":  # the roofline's task figures, worked out before each is timed
        from akg_rag.verify import figures as task_figures

        for job in todo:
            task_figures.prefetch_path(job[3], opts.scale)
    lock = threading.Lock()

    def one(job: tuple[str, str, int, Path, Path]) -> None:
        key, kind, level, task, cand = job
        if deadline and time.monotonic() > deadline:
            return
        row = {"problem": key, "kind": kind, "level": level, "timed": timing}
        if not cand.is_file():
            row["status"] = "missing"
        else:
            # what was verified (content hashes): `repeat` compares only rows of the same sources
            row["sources"] = {"task": source_hash(task.read_text()), "candidate": source_hash(cand.read_text())}
            started = time.monotonic()
            try:
                r = verify(task, cand, dsl=args.dsl, backend=args.backend, options=opts)
                row.update(result_row(r))
            except Exception as e:  # noqa: BLE001 - the task itself failed to load or run
                row.update(status="task_error", feedback=f"{type(e).__name__}: {e}"[:2000])
            row["wall_s"] = round(time.monotonic() - started, 2)
        row["finished"] = round(time.time(), 1)  # when (epoch s): `report` lets the newest row stand
        sp = row.get("speedup_eager")
        with lock:
            with results.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{key} {kind}: {row['status']}" + (f" {sp:.2f}x eager" if isinstance(sp, (int, float)) else ""),
                  flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, todo))
    if deadline and time.monotonic() > deadline:
        print("budget reached; rerun to continue", flush=True)
    return 0


# ---- offline -----------------------------------------------------------------------------------

def offline(args: argparse.Namespace) -> int:
    """Compile each candidate's Triton launches for ``sm_<arch>`` without a GPU (one child per
    candidate: ``python -m akg_rag.lower.offline --json``), one JSON line per candidate; then
    print the launches that spill and the totals."""
    import os
    import subprocess

    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    todo = _jobs(args)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    print(f"{len(todo)} candidates to compile for sm_{args.arch}", flush=True)
    for key, kind, level, task, cand in todo:
        if not cand.is_file():   # no candidate of this kind (a task without a library form): nothing to compile
            print(f"{key} {kind}: no candidate", flush=True)
            continue
        row = {"problem": key, "kind": kind, "level": level, "arch": args.arch}
        run = subprocess.run([sys.executable, "-m", "akg_rag.lower.offline", str(task), str(cand), "--json",
                              "--arch", str(args.arch)], capture_output=True, text=True, env=env,
                             timeout=args.timeout)
        try:
            row["launches"] = json.loads(run.stdout)
        except json.JSONDecodeError:
            row["error"] = (run.stderr.strip() or run.stdout.strip() or f"exit {run.returncode}")[-800:]
        with results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        spills = [ln for ln in row.get("launches", []) if ln.get("spill_bytes")]
        print(f"{key} {kind}: " + (row.get("error", "")[:200] or f"{len(row['launches'])} launches"
                                  + (f", {len(spills)} spilling" if spills else "")), flush=True)
    rows = _rows(results)
    launches = [(r["problem"], ln) for r in rows for ln in r.get("launches", [])]
    spilling = [(p, ln) for p, ln in launches if ln.get("spill_bytes")]
    failed = [r["problem"] for r in rows if r.get("error")] + [p for p, ln in launches if ln.get("error")]
    print(f"{len(rows)} candidates, {len(launches)} launches; {len(spilling)} spilling; "
          f"{len(failed)} failed to compile")
    for p, ln in spilling:
        print(f"  {p}: {ln['kernel']} {ln['num_warps']} warps, {ln['registers']} registers, "
              f"{ln['spill_bytes']} bytes spilled")
    for p in failed:
        print(f"  failed: {p}")
    return 0


def baselines(args: argparse.Namespace) -> int:
    """The selected problems' torch.compile baselines (:func:`compile_baseline.baselines`)."""
    problems = [(f"level{level}/{task.stem}", level, task) for level in args.levels
                for task in _problems(Path(args.kb), level)
                if not args.problems or _number(task) in args.problems]
    return compile_baseline.baselines(problems, args)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run one of prepare / run / offline / baselines / report."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare", help="write candidates for every problem")
    a.add_argument("kb")
    a.add_argument("--levels", type=int, nargs="+", default=[1, 2])
    a.add_argument("--dsl", default="triton")
    a.add_argument("--backend", default="cuda")
    a.add_argument("--out", required=True)
    a.add_argument("--problems", type=int, nargs="+", default=None, metavar="N",
                   help="only these problem numbers (of every selected level); the others' candidates stay")
    a.add_argument("--reuse", action="store_true", help="adapt stored kernels instead of lowering")
    a.add_argument("--stream", action="store_true",
                   help="long-row reductions in the streaming cooperative form (akg_rag/lower/emit/stream.py)")
    a.add_argument("--data-dir", default=None, help="knowledge base for --reuse")
    a.set_defaults(func=prepare)
    b = sub.add_parser("run", help="verify the candidates (resumable)")
    b.add_argument("kb")
    b.add_argument("candidates")
    b.add_argument("--levels", type=int, nargs="+", default=[1])
    b.add_argument("--kinds", nargs="+", default=["lowered"], choices=KINDS)
    b.add_argument("--results", required=True)
    b.add_argument("--shard", default="0/1", help="i/n: run problems whose index is i modulo n")
    b.add_argument("--problems", type=int, nargs="+", default=None, metavar="N",
                   help="only these problem numbers (of every selected level)")
    b.add_argument("--device", default=None, help="torch device, e.g. cuda:1")
    b.add_argument("--dsl", default="triton")
    b.add_argument("--backend", default="cuda")
    b.add_argument("--trials", type=int, default=5)
    b.add_argument("--timeout", type=float, default=300.0)
    b.add_argument("--no-compile", action="store_true", help="skip the torch.compile baseline")
    b.add_argument("--budget", type=float, default=None, help="stop starting problems after this many seconds")
    b.add_argument("--jobs", type=int, default=1,
                   help="candidates verified at once; above 1 timing is off (a correctness sweep)")
    b.add_argument("--no-timing", action="store_true", help="correctness only")
    b.add_argument("--only-correct", default=None, metavar="RESULTS",
                   help="only problems whose row in this results file is correct (to time them)")
    b.add_argument("--first-kind", action="store_true",
                   help="per problem only the first of --kinds it has a candidate of "
                        "(--kinds library lowered: the library form where there is one)")
    b.set_defaults(func=run)
    o = sub.add_parser("offline", help="compile the candidates for an NVIDIA GPU without one (resumable)")
    o.add_argument("kb")
    o.add_argument("candidates")
    o.add_argument("--levels", type=int, nargs="+", default=[1, 2])
    o.add_argument("--kinds", nargs="+", default=["lowered"], choices=KINDS)
    o.add_argument("--results", required=True)
    o.add_argument("--problems", type=int, nargs="+", default=None, metavar="N")
    o.add_argument("--arch", type=int, default=90, help="compute capability x 10 (90: H100/H200)")
    o.add_argument("--timeout", type=float, default=600.0, help="seconds per candidate")
    o.set_defaults(func=offline, shard="0/1", only_correct=None)
    c = sub.add_parser("report", help="figures from result files")
    c.add_argument("results", nargs="+")
    c.add_argument("--mode", choices=("lower", "normal"), default="lower")
    c.add_argument("--markdown", default=None)
    c.add_argument("--json", action="store_true", help="only JSON on stdout: per-level figures and the per-problem rows")
    c.add_argument("--plot", default=None, metavar="OUT.svg", help="speedup distribution per level (SVG)")
    c.add_argument("--baselines", nargs="+", default=None, metavar="FILE",
                   help="`baselines` results: eager-anchored compile figures for rows timed without compile")
    c.add_argument("--exclude", nargs="+", default=None, metavar="PATTERN",
                   help="leave out problems matching these fnmatch patterns, e.g. 'level1/*conv*'")
    c.add_argument("--copy-gbps", type=float, default=COPY_GBPS,
                   help="device-to-device copy bandwidth the memory-bound rows are measured against "
                        f"(default {COPY_GBPS:.0f}: the H200's, docs/results/h200/hw_probe.json)")
    c.set_defaults(func=report)
    r = sub.add_parser("repeat", help="how far two runs of the same candidates agree (speedup per problem)")
    r.add_argument("first", help="results of the first run")
    r.add_argument("second", help="results of the second run of the same candidates")
    r.add_argument("--tolerance", type=float, default=0.05, help="a change counted as agreeing (default 0.05: 5%%)")
    r.add_argument("--json", action="store_true", help="only JSON on stdout")
    r.set_defaults(func=repeat)
    d = sub.add_parser("baselines", help="torch.compile against eager per problem, no candidate (resumable)")
    d.add_argument("kb")
    d.add_argument("--levels", type=int, nargs="+", default=[2])
    d.add_argument("--results", required=True)
    d.add_argument("--problems", type=int, nargs="+", default=None, metavar="N")
    d.add_argument("--device", default="cuda")
    d.add_argument("--jobs", type=int, default=1, help="problems compiling at once (timing stays one at a time)")
    d.add_argument("--timeout", type=float, default=900.0, help="seconds per problem, compile included")
    d.add_argument("--timing-budget", type=float, default=2.0, help="seconds of interleaved timed runs")
    d.add_argument("--budget", type=float, default=None, help="stop starting problems after this many seconds")
    d.set_defaults(func=baselines)
    args = p.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
