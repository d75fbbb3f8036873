"""``akg-ingest PATH...``: ingest markdown docs and kernel folders into the knowledge store.

Exit codes: 0 when nothing was rejected; 1 when some inputs were rejected (everything else was
still ingested); 2 for a usage or configuration error (bad flag, missing path, unreachable store),
printed as one line.
"""

from __future__ import annotations

import argparse
import json
import sys


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``akg-ingest``."""
    parser = argparse.ArgumentParser(
        prog="akg-ingest",
        description="Ingest markdown docs (.md) and kernel folders (task.py + {dsl}_{backend}.py/.json) "
        "into the akg-rag knowledge store. Re-running is incremental: unchanged files cost no "
        "embedding, edited files are replaced, files gone from an ingested directory are removed.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="markdown files, kernel folders or directories to walk")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--data-dir", help="embedded store directory (default: $AKG_RAG_DATA_DIR, else "
                       "$XDG_DATA_HOME/akg-rag or ~/.local/share/akg-rag)")
    where.add_argument("--chroma-url", help="Chroma server, http://HOST:PORT (default: $AKG_RAG_CHROMA_URL)")
    parser.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    parser.add_argument("--reset", action="store_true", help="empty both collections before ingesting")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary: only rejections are printed, to stderr (without "
                        "--quiet they are part of the summary on stdout)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``akg-ingest``; returns the exit code."""
    from akg_rag.errors import AkgError

    args = build_parser().parse_args(argv)
    try:
        from akg_rag.embedding import LazyEmbedder
        from akg_rag.store import make_store

        from ingest.runner import ingest

        store = make_store(data_dir=args.data_dir, url=args.chroma_url)
        report = ingest(
            args.paths,
            store,
            LazyEmbedder(),  # an unchanged tree never loads the model
            dry_run=args.dry_run,
            reset=args.reset,
            progress=not args.quiet,
        )
    except AkgError as e:
        print(f"akg-ingest: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("akg-ingest: interrupted; run again to finish (the store stays consistent)", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    elif args.quiet:
        for rejection in report.rejected:
            print(rejection, file=sys.stderr)
    else:
        print(report.summary())
        if report.skipped:
            print(f"skipped {len(report.skipped)} file(s) that are neither docs nor kernels (see --json)")
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
