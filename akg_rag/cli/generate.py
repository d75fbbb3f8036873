"""``akg-rag generate``: run the agent graph on a task, print progress node by node, write the outputs.

Only argument parsing and printing live here; the run itself is :mod:`akg_rag.graph`. Runs are
checkpointed to SQLite in the output directory, so a killed run continues with ``--resume THREAD``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any, TextIO

from akg_rag.cli.executors import add_executor_arguments, executor_from_args

# Set to a node name to have the process kill itself right after that node's first update: a killed
# run at a known point, for testing --resume. Unset in normal use.
HALT_ENV = "AKG_RAG_HALT_AFTER"


def register(subparsers: Any) -> None:
    """Add the ``generate`` subcommand."""
    from akg_rag.dsl import BACKENDS, DSLS

    p = subparsers.add_parser(
        "generate", help="generate a verified kernel for a task with the agent graph",
        description="Turn a KernelBench-format task into a verified kernel: retrieve, design a sketch, "
                    "write code, verify, optimise. Without --llm the deterministic policies adapt a "
                    "matching kernel from the knowledge base and tune it. Exits 0 with a verified kernel.")
    p.add_argument("task", nargs="?", help="task file (Model, get_inputs, get_init_inputs); not needed with --resume")
    p.add_argument("--dsl", choices=DSLS, help="target DSL (required unless --resume)")
    p.add_argument("--backend", choices=BACKENDS, help="target backend (required unless --resume)")
    p.add_argument("--llm", metavar="PROVIDER:MODEL", help="chat model: openai:MODEL, anthropic:MODEL, ollama:MODEL")
    p.add_argument("--base-url", help="base URL of an OpenAI-compatible server or an Ollama host")
    p.add_argument("--max-iters", type=int, help="coder attempts in the whole run (default 8)")
    p.add_argument("--max-opt-passes", type=int, help="optimisation passes after the first verified kernel (default 2)")
    p.add_argument("--max-designer-rounds", type=int, help="designer runs, retries included (default 3)")
    p.add_argument("--max-wall", type=float, metavar="SECONDS", help="wall-clock budget (default 1800)")
    p.add_argument("--out", help="output directory (default runs/<thread-id>/)")
    p.add_argument("--thread-id", help="name of this run's checkpoint thread (default: task name + time)")
    p.add_argument("--resume", metavar="THREAD", help="continue the checkpointed run THREAD")
    p.add_argument("--data-dir", help="knowledge store directory (default AKG_RAG_DATA_DIR or the XDG data dir)")
    p.add_argument("--chroma-url", help="Chroma server URL (http://host:port) instead of the embedded store")
    p.add_argument("--scale", choices=("small", "full"), help="AKG_TASK_SCALE for the project's tasks")
    p.add_argument("--trials", type=int, help="correctness trials per candidate (default 5)")
    p.add_argument("--no-compile-baseline", action="store_true", default=None,
                   help="skip timing torch.compile of the reference (its first compile costs a while on CPU)")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="per-candidate verification limit (default 300)")
    p.add_argument("--no-write-back", action="store_true", default=None, help="do not add the verified kernel to the knowledge base")
    p.add_argument("--offline-profile", action="store_true", default=None,
                   help="Triton on CUDA: the analyst compiles the best kernel for sm_90 in the sandbox and reads "
                        "registers, spills, resident programs and vectorised loads (no GPU needed)")
    p.add_argument("--json", action="store_true", help="print the final report as JSON on stdout (progress goes to stderr)")
    add_executor_arguments(p)
    p.set_defaults(func=run)


# Longest detail on a progress line (characters); the full message comes once, at the end.
DETAIL_CHARS = 160
# Details longer than this (characters) are printed once; later lines say "(as above)".
REPEAT_CHARS = 60
# Seconds without a finished node after which a "still running" line is printed (and every such span).
HEARTBEAT_S = 20.0


def _progress_line(n: int, node: str, update: dict[str, Any], shown: list[str] | None = None) -> str:
    """``[ n] node status -> route detail``; a detail already shown on an earlier line is not repeated."""
    ev = (update.get("events") or [{}])[-1]
    route = f"-> {ev['route']}" if ev.get("route") else ""
    detail = " ".join(str(ev.get("detail", "")).split())
    if shown is not None:
        head = detail[:80]
        # only long details (messages) are worth a back-reference; short ones repeat harmlessly
        if len(detail) > REPEAT_CHARS and any(head in earlier for earlier in shown):
            detail = "(as above)"
        else:
            shown.append(detail)
    if len(detail) > DETAIL_CHARS:
        detail = detail[: DETAIL_CHARS - 3] + "..."
    return f"[{n:>2}] {node:<9} {str(ev.get('status', '')):<15} {route:<12} {detail}".rstrip()


class _Heartbeat:
    """Prints a line when a node runs longer than ``HEARTBEAT_S`` (a C++ build and timing take a minute)."""

    def __init__(self, log: TextIO, period: float = HEARTBEAT_S) -> None:
        import threading

        self.log, self.period = log, period
        self.next_node = "retrieve"
        self.since = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "_Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)

    def done(self, node: str, update: dict[str, Any]) -> None:
        """A node finished: guess what runs next (for the message) and restart the clock."""
        self.next_node = {"retrieve": "designer", "designer": "conductor", "analyst": "coder",
                          "verifier": "conductor"}.get(node, "next step")
        if node == "coder" and update.get("coder_outcome") == "code":
            self.next_node = "verifier (build, correctness trials, timing)"
        elif node == "conductor" and update.get("route"):
            self.next_node = str(update["route"])
        self.since = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            waited = time.monotonic() - self.since
            if waited >= self.period:
                print(f"      ... {self.next_node}: still running after {waited:.0f} s", file=self.log, flush=True)


# Settings of a run and their defaults. A run saves the ones it used in run.json beside its checkpoint;
# --resume starts from those, and flags given again override them.
DEFAULTS: dict[str, Any] = {
    "llm": None, "base_url": None, "data_dir": None, "chroma_url": None, "scale": None,
    "max_iters": 8, "max_opt_passes": 2, "max_designer_rounds": 3, "max_wall": 1800.0,
    "trials": 5, "timeout": 300.0, "no_compile_baseline": False, "no_write_back": False,
    "offline_profile": False,
}


def _settings(args: argparse.Namespace, saved: dict[str, Any]) -> dict[str, Any]:
    """Each setting from the command line if given, else from the resumed run, else its default."""
    return {k: getattr(args, k) if getattr(args, k) is not None else saved.get(k, d) for k, d in DEFAULTS.items()}


def _context(s: dict[str, Any], thread_id: str) -> Any:
    from akg_rag.graph.context import Context
    from akg_rag.verify import VerifyOptions

    return Context(
        llm=s["llm"], base_url=s["base_url"], data_dir=s["data_dir"], chroma_url=s["chroma_url"],
        verify_options=VerifyOptions(trials=s["trials"], timeout_s=s["timeout"], scale=s["scale"],
                                     compile_baseline=not s["no_compile_baseline"]),
        scale=s["scale"], max_iterations=s["max_iters"], max_opt_passes=s["max_opt_passes"],
        max_designer_rounds=s["max_designer_rounds"], max_wall_s=s["max_wall"],
        write_back=not s["no_write_back"], offline_profile=bool(s["offline_profile"]), run_id=thread_id)


def _check_args(args: argparse.Namespace) -> None:
    """Everything that can be checked without heavy imports, before the run starts (fail fast)."""
    from akg_rag.cli.checks import check_task_file, require_gpu
    from akg_rag.dsl import check_target
    from akg_rag.errors import ConfigError

    if args.resume:
        return
    if not args.task or not args.dsl or not args.backend:
        raise ConfigError("generate needs TASK, --dsl and --backend (or --resume THREAD)")
    check_task_file(args.task)
    check_target(args.dsl, args.backend)
    require_gpu(args.backend, "generate", getattr(args, "executor", None))


def run(args: argparse.Namespace) -> int:
    """Handler of ``akg-rag generate``; returns 0 with a verified kernel, 1 otherwise."""
    _check_args(args)

    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from akg_rag.errors import ConfigError
    from akg_rag.graph.graph import build_graph, run_config, stream_run
    from akg_rag.graph.report import build_report, write_outputs

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the embedding model ships in a package: never the hub
    if args.resume:
        thread_id = args.resume
    else:
        thread_id = args.thread_id or f"{Path(args.task).stem}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:4]}"
    out_dir = Path(args.out) if args.out else Path("runs") / thread_id
    db = out_dir / "checkpoints.sqlite"
    if args.resume and not db.is_file():
        raise ConfigError(f"no checkpoint for thread {thread_id} at {db}; pass --out with the run's directory")
    created = not out_dir.exists()
    out_dir.mkdir(parents=True, exist_ok=True)
    saved_path = out_dir / "run.json"
    saved = json.loads(saved_path.read_text()) if args.resume and saved_path.is_file() else {}
    settings = _settings(args, saved)
    saved_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    context = _context(settings, thread_id)
    if args.executor != "local" or args.ray_address:
        from akg_rag.verify.executor import ExecutorVerify

        context.verify_fn = ExecutorVerify(executor_from_args(args))
    log: TextIO = sys.stderr if args.json else sys.stdout

    conn = sqlite3.connect(str(db), check_same_thread=False)
    try:
        graph = build_graph(checkpointer=SqliteSaver(conn))
        config = run_config(context, thread_id)
        inputs: dict[str, Any] | None = None
        if args.resume:
            snapshot = graph.get_state(config)
            if not snapshot.values:
                raise ConfigError(f"thread {thread_id} has no checkpoint in {db}")
            print(f"resuming {thread_id} before: {', '.join(snapshot.next) or 'nothing (finished)'}",
                  file=log, flush=True)
        else:
            inputs = {"task_path": str(args.task), "dsl": args.dsl, "backend": args.backend}
            print(f"run {thread_id}: {args.task} -> {args.dsl}/{args.backend} "
                  f"({'llm ' + settings['llm'] if settings['llm'] else 'deterministic policies'}); "
                  f"run directory {out_dir}", file=log, flush=True)
        halt_after = os.environ.get(HALT_ENV)
        shown: list[str] = []
        with _Heartbeat(log) as beat:
            for n, (node, update) in enumerate(stream_run(graph, inputs, context, thread_id), 1):
                beat.done(node, update)
                print(_progress_line(n, node, update, shown), file=log, flush=True)
                if node == halt_after:
                    os.kill(os.getpid(), signal.SIGKILL)  # die as a killed run would: no cleanup at all
        state = dict(graph.get_state(config).values)
    finally:
        conn.close()

    status, message = state.get("status", "running"), state.get("message", "")
    if status != "verified" and created and not state.get("attempts"):
        # Nothing was tried: no kernel, no attempt to inspect, nothing worth resuming.
        report = build_report(state, thread_id)
        import shutil

        shutil.rmtree(out_dir, ignore_errors=True)
        if args.json:
            print(json.dumps({**report, "out_dir": None, "files": {}}, indent=2, default=str))
        print(f"akg-rag: generate: {status}: {message}\n(no attempt was made; removed {out_dir})",
              file=sys.stderr)
        return 1
    paths = write_outputs(state, out_dir, thread_id)
    if args.json:
        print(json.dumps({**build_report(state, thread_id), "out_dir": str(out_dir),
                          "files": {k: str(v) for k, v in paths.items()}}, indent=2, default=str))
    if status != "verified":
        print(f"akg-rag: generate: {status}: {message}\n(FAILED run; its report is kept for inspection: "
              f"{paths['report_md']})", file=sys.stderr)
        return 1
    if not args.json:
        # the verdict comes last: it is the line a reader of the run (or of `make demo`) sees
        print(f"outputs: {', '.join(str(p) for p in paths.values())}")
        print(f"{status}: {message}")
    return 0
