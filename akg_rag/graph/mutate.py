"""Offline optimisation: variants of a verified kernel that change one tunable at a time.

A tunable is an integer constant whose name says it sets a schedule: block or tile sizes, warps,
stages, vector width, unroll factor, chunk or thread counts. It is found as a Python assignment or
keyword (``BLOCK_SIZE = 1024``, ``num_warps=4``) or a C/C++ constant (``constexpr int TILE = 64;``,
``#define VEC 8``). A variant doubles or halves one power-of-two value within its range; the verifier
then decides whether it is correct and faster.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = r"(?:[A-Z][A-Z0-9_]*_)?(?:BLOCK|TILE|VEC|UNROLL|CHUNK|THREADS|WARPS|STAGES|GROUP)[A-Z0-9_]*|num_warps|num_stages"
_PATTERNS = (
    re.compile(rf"^(?P<pre>[ \t]*(?P<name>{_NAME})[ \t]*=[ \t]*)(?P<val>\d+)\b", re.M),           # Python
    re.compile(rf"(?P<pre>\b(?P<name>{_NAME})[ \t]*=[ \t]*)(?P<val>\d+)(?=[ \t]*[,)])"),            # kwarg
    re.compile(rf"(?P<pre>\b(?:constexpr|const)\s+(?:int|int64_t|size_t|long)\s+(?P<name>{_NAME})\s*=\s*)(?P<val>\d+)"),
    re.compile(rf"^(?P<pre>[ \t]*#define[ \t]+(?P<name>{_NAME})[ \t]+)(?P<val>\d+)\b", re.M),
)

# Value ranges (inclusive) that stay sensible on any target; others default to [1, 65536].
_RANGES = {"num_warps": (1, 16), "num_stages": (1, 6), "WARPS": (1, 16), "STAGES": (1, 6),
           "VEC": (1, 16), "UNROLL": (1, 16), "THREADS": (1, 1024)}


@dataclass
class Tunable:
    """One occurrence of a tunable: name, value and where the value sits in the source."""

    name: str
    value: int
    start: int  # character offset of the value
    end: int


@dataclass
class Variant:
    """A source with one tunable changed, the change as ``NAME=value``, and its full settings."""

    code: str
    change: str
    settings: str


def find_tunables(code: str) -> list[Tunable]:
    """Every tunable occurrence in ``code``, in source order, one per (name, position)."""
    found: dict[int, Tunable] = {}
    for pattern in _PATTERNS:
        for m in pattern.finditer(code):
            found.setdefault(m.start("val"), Tunable(m.group("name"), int(m.group("val")),
                                                     m.start("val"), m.end("val")))
    return [found[k] for k in sorted(found)]


def _range(name: str) -> tuple[int, int]:
    for key, bounds in _RANGES.items():
        if key == name or (key.isupper() and key in name):
            return bounds
    return 1, 65536


def variants(code: str) -> list[Variant]:
    """Single-change variants of ``code``: each power-of-two tunable doubled, then halved."""
    out: list[Variant] = []
    for t in find_tunables(code):
        if t.value < 1 or t.value & (t.value - 1):
            continue  # not a power of two: not a schedule knob we can step safely
        lo, hi = _range(t.name)
        for new in (t.value * 2, t.value // 2):
            if lo <= new <= hi and new != t.value:
                new_code = code[: t.start] + str(new) + code[t.end:]
                out.append(Variant(new_code, f"{t.name}={new}", settings(new_code)))
    return out


def settings(code: str) -> str:
    """Every tunable's value in source order (``A=1,B=2``): identifies a point of the search space."""
    return ",".join(f"{t.name}={t.value}" for t in find_tunables(code))


def next_variant(code: str, tried: list[str]) -> Variant | None:
    """The first variant of ``code`` whose settings are not in ``tried`` (None when all were tried)."""
    for v in variants(code):
        if v.settings not in tried:
            return v
    return None
