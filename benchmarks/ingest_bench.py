"""Ingest throughput: cold chunks per second, and the cost of re-ingesting an unchanged corpus.

Usage::

    python benchmarks/ingest_bench.py [--corpus DIR] [--copies N] [--json]

The corpus is ``knowledge/`` by default. When it is small, ``--copies N`` adds N renamed copies
of its markdown docs (each slightly altered so no chunk text repeats) to reach a realistic size.
Figures: model load time (once per process), cold ingest time and rows/s into a fresh embedded
store, the in-process time of a second, unchanged ingest (target <= 3 s), and the wall time of the
``akg-ingest`` command on the unchanged corpus (process start and imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build_corpus(source: Path, copies: int, dest: Path) -> Path:
    """A copy of ``source`` plus ``copies`` altered copies of its docs, under ``dest/corpus``."""
    corpus = dest / "corpus"
    shutil.copytree(source, corpus, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    docs = sorted((source / "docs").rglob("*.md")) if (source / "docs").is_dir() else []
    for k in range(copies):
        for doc in docs:
            rel = doc.relative_to(source / "docs")
            target = corpus / "docs" / rel.parent / f"{rel.stem}_copy{k}.md"
            text = doc.read_text(encoding="utf-8")
            # Alter every paragraph a little so embeddings are not reused across copies.
            target.write_text(text.replace("\n\n", f"\n\n(copy {k}) ", 40), encoding="utf-8")
    return corpus


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO / "knowledge", help="tree to ingest (default knowledge/)")
    parser.add_argument("--copies", type=int, default=0, help="extra altered copies of the docs (default 0)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(REPO))

    from akg_rag.embedding import make_embedder
    from akg_rag.store import make_store
    from ingest.runner import ingest

    t0 = time.perf_counter()
    embedder = make_embedder()
    load_s = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        corpus = build_corpus(args.corpus, args.copies, Path(tmp))
        data_dir = Path(tmp) / "store"
        store = make_store(data_dir=data_dir)

        t0 = time.perf_counter()
        cold = ingest([corpus], store, embedder)
        cold_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        warm = ingest([corpus], store, embedder)
        warm_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "ingest.cli", str(corpus), "--data-dir", str(data_dir), "--quiet"],
            cwd=REPO, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        cli_s = time.perf_counter() - t0

    figures = {
        "corpus": str(args.corpus),
        "copies": args.copies,
        "files": len(cold.added),
        "rows": cold.rows_written,
        "rejected": len(cold.rejected),
        "model_load_s": round(load_s, 2),
        "cold_s": round(cold_s, 2),
        "cold_rows_per_s": round(cold.rows_written / cold_s, 1) if cold_s else None,
        "unchanged_s": round(warm_s, 3),
        "unchanged_embedded": warm.embedded,
        "unchanged_cli_s": round(cli_s, 2),
        "unchanged_cli_exit": proc.returncode,
        "load_average_1m": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
