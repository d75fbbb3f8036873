"""``akg-rag query``: three-stage retrieval from the command line, for a task file or free text.

Only argument parsing and printing live here; the retrieval itself is :mod:`akg_rag.retrieval`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO


def register(subparsers: Any) -> None:
    """Add the ``query`` subcommand."""
    from akg_rag.dsl import BACKENDS, DSLS
    from akg_rag.optypes import OP_TYPES

    p = subparsers.add_parser(
        "query", help="retrieve kernels and documents for a task or a description",
        description="Rank stored kernels by computation logic (semantic), keep only the requested "
                    "DSL/backend/op type (hard filter), and order by semantic plus shape compatibility. "
                    "Documents for the same query come with them.")
    p.add_argument("text", nargs="?", help="free-text description of the computation (or use --task)")
    p.add_argument("--task", metavar="FILE", help="KernelBench-format task file: its computation and input shapes")
    p.add_argument("--dsl", choices=DSLS, help="keep only kernels in this DSL")
    p.add_argument("--backend", choices=BACKENDS, help="keep only kernels for this backend")
    p.add_argument("--op-type", choices=OP_TYPES, help="keep only kernels having this op type")
    p.add_argument("--shape", action="append", metavar="AxBxC",
                   help="an input shape for free text, e.g. 4096x4096 (-1 = dynamic); repeat per input")
    p.add_argument("--k", type=int, default=5, help="kernels to return (default 5)")
    p.add_argument("--docs", type=int, default=3, help="document chunks to return, hardware notes included (default 3)")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.add_argument("--explain", action="store_true", help="show per-stage candidate counts and every score")
    p.add_argument("--code", action="store_true", help="print the best kernel's source after the table")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", help="knowledge store directory (default AKG_RAG_DATA_DIR or the XDG data dir)")
    where.add_argument("--chroma-url", help="Chroma server URL (http://host:port) instead of the embedded store")
    p.set_defaults(func=run, _parser=p)


def parse_shape(text: str) -> list[int]:
    """``"4096x-1x64"`` -> ``[4096, -1, 64]``; ``""`` or ``"scalar"`` -> ``[]``."""
    from akg_rag.errors import ConfigError

    if text.strip() in ("", "scalar"):
        return []
    try:
        dims = [int(d) for d in text.lower().replace(",", "x").split("x")]
    except ValueError:
        raise ConfigError(f"bad --shape {text!r}: expected sizes joined by x, e.g. 4096x4096 (-1 = dynamic)") from None
    if any(d < -1 for d in dims):
        raise ConfigError(f"bad --shape {text!r}: sizes are >= 0, or -1 for a dynamic dim")
    return dims


def run(args: argparse.Namespace) -> int:
    """Handler of ``akg-rag query``: 0 with results printed, 1 when the store is empty."""
    from akg_rag.cli.checks import check_task_file, empty_store_message, require_text

    if (args.text is not None) == bool(args.task):
        args._parser.error("give either a free-text query or --task FILE (exactly one)")
    if args.task and args.shape:
        args._parser.error("--shape is for free text; a task's shapes come from the task itself")
    if args.k < 1 or args.docs < 0:
        args._parser.error("--k must be >= 1 and --docs >= 0")
    # Cheap checks first: a bad input is reported before the store and the model load (~10-20 s).
    require_text(args.text)
    if args.task:
        check_task_file(args.task)
    shapes = [parse_shape(s) for s in args.shape] if args.shape else None
    if args.dsl and args.backend:
        from akg_rag.dsl import check_target

        check_target(args.dsl, args.backend)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the embedding model ships in a package: never the hub

    from akg_rag.embedding import make_embedder
    from akg_rag.retrieval import KernelFilter, Retriever
    from akg_rag.store import make_store

    KernelFilter(args.dsl, args.backend, args.op_type)
    store = make_store(data_dir=args.data_dir, url=args.chroma_url)
    if store.count("kernels") == 0 and store.count("docs") == 0:
        print(empty_store_message(store.location, args.data_dir, args.chroma_url), file=sys.stderr)
        return 1
    retriever = Retriever(store, make_embedder())
    common = dict(dsl=args.dsl, backend=args.backend, op_type=args.op_type, k=args.k, docs=args.docs)
    if args.task:
        result = retriever.search_task(args.task, **common)
    else:
        result = retriever.search_text(args.text, shapes=shapes, **common)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=str)
        print()
        return 0
    print_result(result, explain=args.explain, code=args.code, out=sys.stdout)
    return 0


def print_result(result: Any, explain: bool = False, code: bool = False, out: TextIO = sys.stdout) -> None:
    """Print the ranked kernel table and the documents; ``explain`` prints the stage account instead."""
    if explain:
        print(result.explain(), file=out)
    else:
        q = result.query
        print(f"query: {q.op_name or _clip(q.text, 60)}  (filters: dsl={q.dsl or '*'} "
              f"backend={q.backend or '*'} op_type={q.op_type or '*'})", file=out)
        if not result.hits:
            print("no kernels match these filters", file=out)
        else:
            print(f"{'#':>2}  {'score':>6}  {'op':<24} {'target':<16} {'speedup':>7}  source", file=out)
            for i, h in enumerate(result.hits, 1):
                speed = h.metadata.get("speedup_eager")
                speed_s = f"{speed:.2f}x" if isinstance(speed, (int, float)) else "-"
                src = h.metadata.get("source") or h.id
                print(f"{i:>2}  {h.score:6.3f}  {_clip(h.op_name, 24):<24} {h.dsl + '/' + h.backend:<16} "
                      f"{speed_s:>7}  {src}", file=out)
        if result.docs:
            print("documents:", file=out)
            for d in result.docs:
                label = f"[{d.hardware}] " if d.hardware else ""
                print(f"  {d.score:6.3f}  {label}{d.source} :: {_clip(d.heading, 70)}", file=out)
    if code and result.hits:
        print(f"\n# --- {result.hits[0].id}\n{result.hits[0].code}", file=out)


def _clip(text: str, width: int) -> str:
    """One line of at most ``width`` characters."""
    one = " ".join(str(text).split())
    return one if len(one) <= width else one[: width - 3] + "..."
