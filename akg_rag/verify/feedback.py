"""Turning compiler output and tracebacks into short feedback a coder can act on.

A failed ``load_inline`` build prints hundreds of lines (ninja command lines, include chains); the
coder needs the first few ``error:`` lines with the source line under each.
"""

from __future__ import annotations

import re
import traceback

_ERROR = re.compile(r"(\berror\b|\bError\b:|undefined reference|undefined symbol)", re.IGNORECASE)
_NOISE = ("ninja: build stopped", "FAILED:", "Error building extension", "In file included from",
          "                 from ", "error: command", "subprocess.CalledProcessError")


def compiler_excerpt(output: str, max_errors: int = 3, context: int = 3, max_chars: int = 2500) -> str:
    """The first ``max_errors`` compiler errors of ``output``, each with ``context`` lines after it."""
    lines = output.splitlines()
    picked: list[str] = []
    errors = 0
    i = 0
    while i < len(lines) and errors < max_errors:
        line = lines[i]
        if _ERROR.search(line) and not line.lstrip().startswith(_NOISE) and not line.startswith(("c++ ", "g++ ", "nvcc ", "/usr/bin/")):
            errors += 1
            picked.append(line.strip())
            for follow in lines[i + 1:i + 1 + context]:
                if _ERROR.search(follow) or follow.lstrip().startswith(_NOISE):
                    break
                picked.append(follow.rstrip())
        i += 1
    if not picked:  # no recognisable error line: keep the tail, where the reason usually is
        picked = [ln for ln in lines if not ln.lstrip().startswith(_NOISE)][-12:]
    text = "\n".join(picked)
    return text if len(text) <= max_chars else text[:max_chars] + "\n..."


def exception_excerpt(exc: BaseException, candidate_file: str, max_frames: int = 3) -> str:
    """``Type: message`` plus the last frames that lie in the candidate's own file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == candidate_file]
    lines = [f"{type(exc).__name__}: {str(exc).strip()[:1500]}"]
    for f in frames[-max_frames:]:
        lines.append(f"  candidate line {f.lineno}, in {f.name}: {(f.line or '').strip()}")
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause) and str(cause) not in lines[0]:
        lines.append(f"  caused by {type(cause).__name__}: {str(cause).strip()[:500]}")
    return "\n".join(lines)
