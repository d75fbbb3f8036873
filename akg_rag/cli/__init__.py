"""The ``akg-rag`` command: parses arguments and hands each subcommand to the library.

Subcommand modules import nothing heavy at module level (only inside their handlers), so that
``akg-rag verify`` works where only torch and triton are installed. Each module in this package exposes ``register(subparsers)`` that adds its
parser and sets ``func`` to a function taking the parsed namespace and returning an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> module under akg_rag.cli
COMMANDS: dict[str, str] = {
    "query": "query",
    "kb": "kb",
    "verify": "verify",
    "bench": "bench",
    "generate": "generate",
    "search": "search",
}


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every subcommand that exists."""
    parser = argparse.ArgumentParser(
        prog="akg-rag",
        description="Query the kernel knowledge base, verify and benchmark kernels, and generate new ones.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, mod in COMMANDS.items():
        try:
            module = importlib.import_module(f"akg_rag.cli.{mod}")
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith("akg_rag.cli."):
                continue  # subcommand not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``akg-rag``; returns the process exit code."""
    from akg_rag.errors import AkgError

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except AkgError as e:
        print(f"akg-rag: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("akg-rag: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
