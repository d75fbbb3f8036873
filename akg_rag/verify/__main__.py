"""``python -m akg_rag.verify``: the verifier and bench where only torch and triton exist.

    python -m akg_rag.verify TASK CANDIDATE --dsl D --backend B [--json] [--scale small] ...
    python -m akg_rag.verify bench TASKS_DIR CANDIDATES_DIR --dsl D --backend B [--jobs N] ...

The arguments are those of ``akg-rag verify`` and ``akg-rag bench`` (``verify`` may be spelled out).
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` as a verify or bench command and run it; returns the exit code."""
    from akg_rag.cli import bench, verify
    from akg_rag.errors import AkgError

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m akg_rag.verify",
                                     description="Verify one kernel candidate, or bench a directory.")
    sub = parser.add_subparsers(dest="command", metavar="{verify,bench}")
    verify.register(sub)
    bench.register(sub)
    if not argv or argv[0] not in ("verify", "bench", "-h", "--help"):
        argv = ["verify"] + argv
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except AkgError as e:
        print(f"akg_rag.verify: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
