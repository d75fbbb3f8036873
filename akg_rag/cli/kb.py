"""``akg-rag kb list|show|remove|stats|tunings``: look into the knowledge base and edit it by hand.

Only argument parsing and printing live here; the work is in :mod:`akg_rag.kb`.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any


def _common(p: argparse.ArgumentParser, filters: bool = True) -> None:
    from akg_rag.dsl import BACKENDS, DSLS

    if filters:
        p.add_argument("--collection", choices=("docs", "kernels"), help="only this collection (default both)")
        p.add_argument("--dsl", choices=DSLS, help="only rows for this DSL")
        p.add_argument("--backend", choices=BACKENDS, help="only rows for this backend")
    p.add_argument("--json", action="store_true", help="print JSON")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", help="knowledge store directory (default AKG_RAG_DATA_DIR or the XDG data dir)")
    where.add_argument("--chroma-url", help="Chroma server URL (http://host:port) instead of the embedded store")


def register(subparsers: Any) -> None:
    """Add the ``kb`` subcommand and its four actions."""
    kb = subparsers.add_parser(
        "kb", help="list, show, remove and count knowledge-base entries",
        description="Inspect the knowledge base: doc chunks (ids doc:SOURCE:N) and kernels "
                    "(ids kernel:DSL:BACKEND:OP:TASKHASH:CODEHASH). Fill it with akg-ingest.")
    actions = kb.add_subparsers(dest="kb_action", metavar="ACTION", required=True)
    p = actions.add_parser("list", help="one line per entry", description="List entries, optionally filtered.")
    _common(p)
    p.set_defaults(func=run_list)
    p = actions.add_parser("show", help="one entry in full", description="Show one entry: document and metadata.")
    p.add_argument("id", help="entry id, e.g. doc:knowledge/docs/triton/reductions.md:0")
    _common(p, filters=False)
    p.set_defaults(func=run_show)
    p = actions.add_parser(
        "remove", help="delete entries by id",
        description="Delete entries by id. An ingested entry returns on the next akg-ingest of its "
                    "tree unless its file is deleted or changed.")
    p.add_argument("ids", nargs="+", metavar="ID", help="entry ids")
    _common(p, filters=False)
    p.set_defaults(func=run_remove)
    p = actions.add_parser("stats", help="counts per collection, DSL and backend",
                           description="Counts per collection, DSL, backend and target (and op type/origin of kernels).")
    _common(p)
    p.set_defaults(func=run_stats)
    p = actions.add_parser(
        "tunings", help="the tuned kernel configurations of the data directory",
        description="List the tuning store beside the knowledge base (<data dir>/tuning.json, or "
                    "$AKG_RAG_TUNING_STORE): per op signature, shape bucket and device, the tunables "
                    "that measured fastest, with their time. `python -m akg_rag.lower TASK --tune` "
                    "fills it; the lowering starts from it.")
    p.add_argument("--dsl", help="only configurations for this DSL")
    p.add_argument("--backend", help="only configurations for this backend")
    p.add_argument("--json", action="store_true", help="print JSON")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", help="data directory whose tuning.json to read")
    where.add_argument("--store", help="a tuning store file")
    p.set_defaults(func=run_tunings)


def _store(args: argparse.Namespace) -> Any:
    from akg_rag.store import make_store

    return make_store(data_dir=args.data_dir, url=args.chroma_url)


def run_list(args: argparse.Namespace) -> int:
    """Handler of ``kb list``: always 0 (an empty listing is not an error)."""
    from akg_rag.kb import list_items

    items = list_items(_store(args), args.collection, args.dsl, args.backend)
    if args.json:
        print(json.dumps([asdict(i) for i in items], indent=2))
        return 0
    for i in items:
        target = f"{i.dsl or '-'}/{i.backend or '-'}"
        extra = f" [{i.origin}]" if i.origin else ""
        print(f"{i.id}\t{target}\t{i.label}{extra}")
    print(f"{len(items)} entr{'y' if len(items) == 1 else 'ies'}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Handler of ``kb show``: 0 when found, 1 when no collection has the id."""
    import sys

    from akg_rag.kb import show_item
    from akg_rag.records import from_chroma_metadata

    found = show_item(_store(args), args.id)
    if found is None:
        print(f"akg-rag: no entry with id {args.id!r} (see `akg-rag kb list`)", file=sys.stderr)
        return 1
    collection, item = found
    meta = from_chroma_metadata(item.metadata)
    if args.json:
        print(json.dumps({"collection": collection, "id": item.id, "document": item.document, "metadata": meta}, indent=2))
        return 0
    code = meta.pop("code", None)
    print(f"{item.id}  ({collection})")
    for key in sorted(meta):
        print(f"  {key}: {meta[key]}")
    print("\n" + (item.document or ""))
    if code:
        print("\n--- code ---\n" + code)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    """Handler of ``kb remove``: 0 when every id was removed, 1 when some were not found."""
    import sys

    from akg_rag.kb import remove_items

    result = remove_items(_store(args), args.ids)
    if args.json:
        print(json.dumps(asdict(result), indent=2))
    else:
        for item_id in result.removed:
            print(f"removed {item_id}")
        for item_id in result.missing:
            print(f"not found: {item_id}", file=sys.stderr)
    return 1 if result.missing else 0


def run_stats(args: argparse.Namespace) -> int:
    """Handler of ``kb stats``: always 0."""
    from akg_rag.kb import stats

    store = _store(args)
    result = stats(store, args.collection, args.dsl, args.backend)
    if args.json:
        print(json.dumps({"location": store.location, "collections": result}, indent=2))
        return 0
    print(f"knowledge base at {store.location}")
    for name, entry in result.items():
        print(f"{name}: {entry['total']} (revision {entry['revision']})")
        for key, counts in entry.items():
            if key.startswith("by_") and counts:
                listed = ", ".join(f"{k} {v}" for k, v in counts.items())
                print(f"  {key[3:].replace('_', ' ')}: {listed}")
        if "files" in entry:
            print(f"  files: {entry['files']}")
    return 0


def run_tunings(args: argparse.Namespace) -> int:
    """Handler of ``kb tunings``: 0, also for an empty or absent store; 2 for an unreadable one."""
    import sys
    from pathlib import Path

    from akg_rag.errors import ConfigError
    from akg_rag.lower.tuning_store import TuningStore

    path = args.store or (Path(args.data_dir) / "tuning.json" if args.data_dir else None)
    store = TuningStore(path)
    try:
        entries = store.entries()
    except ConfigError as e:
        print(f"akg-rag: kb tunings: {e}", file=sys.stderr)
        return 2
    rows = [(k, e) for k, e in sorted(entries.items(), key=lambda kv: (kv[1].key.get("device", ""), kv[1].kind, kv[0]))
            if (not args.dsl or e.dsl == args.dsl) and (not args.backend or e.backend == args.backend)]
    if args.json:
        print(json.dumps({"store": str(store.path), "entries": {k: e.to_dict() for k, e in rows}}, indent=2))
        return 0
    print(f"tuning store at {store.path}")
    for _, e in rows:
        knobs = " ".join(f"{k}={v}" for k, v in sorted(e.tunables.items()))
        ms = f"{e.ms:.4g} ms" if e.ms else "- ms"
        sp = f", {e.speedup_eager:.2f}x eager" if e.speedup_eager else ""
        print(f"{e.dsl}/{e.backend} {e.kind or '-'} {e.key.get('signature', '?')} [{e.key.get('bucket', '')}] "
              f"on {e.key.get('device', '?')}: {knobs} ({ms}{sp}; {Path(e.task).name or '-'}, {e.date})")
    print(f"{len(rows)} configuration{'' if len(rows) == 1 else 's'}")
    return 0
