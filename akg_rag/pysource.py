"""``parse``: ``ast.parse`` that survives other threads parsing at the same time.

CPython 3.11's AST constructor keeps its recursion depth in per-interpreter state; when two
threads build ASTs at once (this package's scanners, or a library such as Triton parsing a kernel
while it is defined) the counts can interleave and ``ast.parse`` raises a spurious
``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905), which once
ended a whole concurrent sweep. Parses here hold one lock among themselves and retry that one
error: parsing is deterministic, so a retry gives the real result.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()
ATTEMPTS = 4


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``; SyntaxError as usual."""
    with _LOCK:
        for attempt in range(ATTEMPTS):
            try:
                return ast.parse(source, filename=filename)
            except SystemError as e:
                if "recursion depth mismatch" not in str(e) or attempt == ATTEMPTS - 1:
                    raise
    raise AssertionError("unreachable")
