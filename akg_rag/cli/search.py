"""``akg-rag search TASK SEED --dsl D --backend B``: evolve a kernel's tunables on several islands.

Prints one progress line per generation (best fitness so far per island), then the best kernel's
verdict; writes ``best.py`` and ``history.json`` into ``--out``. The exit code is 0 when a correct
kernel was found. Nothing heavy is imported until the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from akg_rag.cli.executors import add_executor_arguments, add_llm_arguments, executor_from_args
from akg_rag.cli.verify import add_common_arguments, options_from_args


def register(subparsers: Any) -> None:
    """Add the ``search`` subcommand."""
    p = subparsers.add_parser(
        "search", help="island-model search over a kernel's tunables",
        description="Evolve a correct seed kernel: several islands of variants that change its tunables "
                    "(module-level UPPER_CASE int constants, C++ constexpr constants, launch options), "
                    "selected by measured speedup over eager, with elitism and periodic migration of "
                    "each island's best to the next. Every new variant is verified (correctness, "
                    "guards, timing); a generation's variants verify in parallel with --jobs.",
        epilog="The torch.compile baseline is not timed during a search (fitness is the speedup vs "
               "eager). Under the Triton interpreter (triton on cpu) timings mean nothing, so every "
               "correct variant scores 1.0.")
    p.add_argument("task", help="task file (Model, get_inputs, get_init_inputs)")
    p.add_argument("seed_candidate", metavar="SEED_CANDIDATE", help="a candidate file (ModelNew) to start from")
    add_common_arguments(p)
    p.set_defaults(no_compile_baseline=True, func=run)
    p.add_argument("--islands", type=int, default=4, help="number of islands (default 4)")
    p.add_argument("--population", type=int, default=6, help="candidates per island (default 6)")
    p.add_argument("--generations", type=int, default=5, help="generations after the initial one (default 5)")
    p.add_argument("--migrate-every", type=int, default=2, metavar="N",
                   help="migrate each island's best to the next island every N generations (default 2)")
    p.add_argument("--elite", type=int, default=1, help="best candidates kept per island (default 1)")
    p.add_argument("--jobs", type=int, default=1,
                   help="verifications at once (default 1: concurrent runs share cores and skew timings)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the search (default 0)")
    p.add_argument("--domain", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="values a tunable may take (repeatable), e.g. BLOCK_SIZE=256,512,1024")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where best.py and history.json go (default ./search-<task name>)")
    add_executor_arguments(p)
    add_llm_arguments(p)
    p.add_argument("--rewrite-share", type=float, default=0.25, metavar="F",
                   help="with --llm, the share of children written by the model (default 0.25)")


def parse_domains(items: list[str]) -> dict[str, list[int]]:
    """``["A=1,2", "B=64"]`` -> ``{"A": [1, 2], "B": [64]}``; raises ``ConfigError`` on bad syntax."""
    from akg_rag.errors import ConfigError

    out: dict[str, list[int]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        try:
            parsed = [int(v) for v in values.split(",") if v.strip()]
        except ValueError:
            parsed = []
        if not sep or not name.strip() or not parsed:
            raise ConfigError(f"--domain {item!r}: expected NAME=V1,V2,... with integer values")
        out[name.strip()] = parsed
    return out


def run(args: argparse.Namespace) -> int:
    """Handler of ``akg-rag search``."""
    from akg_rag.errors import ConfigError
    from akg_rag.search import run_search

    from akg_rag.cli.checks import check_task_file, require_gpu
    from akg_rag.dsl import check_target

    task, seed_path = Path(args.task), Path(args.seed_candidate)
    check_task_file(task)
    check_target(args.dsl, args.backend)
    require_gpu(args.backend, "search", getattr(args, "executor", None))
    if not seed_path.is_file():
        raise ConfigError(f"seed candidate {seed_path} not found: give a candidate file defining ModelNew")
    out = Path(args.out) if args.out else Path(f"search-{task.parent.name if task.stem == 'task' else task.stem}")
    log = sys.stderr if args.json else sys.stdout

    def progress(record: Any) -> None:
        print(record.line(), file=log, flush=True)

    rewrite = None
    if args.llm:
        from akg_rag.graph.models import make_chat_model
        from akg_rag.graph.rewrite import AnalystRewrite

        rewrite = AnalystRewrite(make_chat_model(args.llm, base_url=args.base_url), task, args.dsl, args.backend)
    elif args.base_url:
        raise ConfigError("--base-url needs --llm PROVIDER:MODEL")

    result = run_search(seed_path.read_text(encoding="utf-8"), task, dsl=args.dsl, backend=args.backend,
                        islands=args.islands, population=args.population, generations=args.generations,
                        migrate_every=args.migrate_every, elite=args.elite, seed=args.seed,
                        executor=executor_from_args(args, jobs=args.jobs), options=options_from_args(args),
                        domains=parse_domains(args.domain), progress=progress, rewrite=rewrite,
                        rewrite_share=args.rewrite_share)
    out.mkdir(parents=True, exist_ok=True)
    (out / "best.py").write_text(result.best.source, encoding="utf-8")
    data = result.to_dict()
    (out / "history.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    if args.json:
        data["out"] = str(out)
        print(json.dumps(data, indent=2))
    else:
        print(summary(result, out))
    return 0 if result.found else 1


def summary(result: Any, out: Path) -> str:
    """Human-readable end of a search: the best kernel against the seed, and where it was written."""
    best, seed = result.best, result.seed
    tun = ", ".join(f"{k}={v}" for k, v in best.tunables.items()) or "none"
    lines = [f"best: {best.fitness.describe() if best.fitness else 'not verified'}",
             f"  tunables {tun}  (origin {best.origin}, key {best.key})",
             f"seed: {seed.fitness.describe() if seed.fitness else 'not verified'}"]
    if result.speedup_over_seed is not None and result.best.fitness.meaningful:
        lines.append(f"best / seed: {result.speedup_over_seed:.3g}x")
    skipped = result.config.get("skipped_moves") or []
    if skipped:
        lines.append(f"skipped {len(skipped)} move(s) that cannot change the executed code for this task's "
                     f"shapes, e.g. {skipped[0]['change']}: {skipped[0]['reason']}")
    lines.append(f"{result.evaluated} distinct candidates verified; wrote {out / 'best.py'} and "
                 f"{out / 'history.json'}")
    return "\n".join(lines)
