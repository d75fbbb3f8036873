"""Value domains of tunables: which values a search may give each one, and its neighbours.

A domain is a sorted tuple of allowed values, chosen by the tunable's name (first rule that matches):

| name contains            | values                         |
| ------------------------ | ------------------------------ |
| ``MIN_PARALLEL``         | powers of two, 1024 .. 1 << 20 |
| ``WARPS``                | powers of two, 1 .. 16         |
| ``STAGES``               | every integer, 1 .. 6          |
| ``THREADS``              | multiples of 32, 32 .. 1024    |
| ``VEC``                  | powers of two, 1 .. 8          |
| ``UNROLL``               | powers of two, 1 .. 16         |
| ``BLOCK_K``, ``BK``, ``TILE_K`` | powers of two, 16 .. 256 |
| ``BLOCK``, ``TILE``, ``BM``/``BN`` | powers of two, 16 .. 4096 |
| anything else            | the value times 1/4, 1/2, 1, 2, 4 (integers >= 1) |

The value a kernel ships with is always in its domain, so the seed stays a point of the search.
Callers override a domain per name with an explicit list of values.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from akg_rag.errors import ConfigError

Domains = Mapping[str, Sequence[int]]


def _pow2(lo: int, hi: int) -> Callable[[int], tuple[int, ...]]:
    return lambda _v: tuple(1 << k for k in range(hi.bit_length()) if lo <= 1 << k <= hi)


def _span(lo: int, hi: int, step: int = 1) -> Callable[[int], tuple[int, ...]]:
    return lambda _v: tuple(range(lo, hi + 1, step))


def _around(value: int) -> tuple[int, ...]:
    """Geometric neighbourhood of a free constant: x1/4 .. x4, integers only."""
    up = [value << k for k in range(1, 3)]
    down = [value >> k for k in range(1, 3) if value % (1 << k) == 0]
    return tuple(sorted({value, *up, *down}))


# (pattern on the upper-cased base name, domain builder); the first match wins.
_RULES: tuple[tuple[re.Pattern[str], Callable[[int], tuple[int, ...]]], ...] = (
    (re.compile(r"MIN_PARALLEL"), _pow2(1024, 1 << 20)),
    (re.compile(r"WARPS"), _pow2(1, 16)),
    (re.compile(r"STAGES"), _span(1, 6)),
    (re.compile(r"THREADS"), _span(32, 1024, 32)),
    (re.compile(r"VEC"), _pow2(1, 8)),
    (re.compile(r"UNROLL"), _pow2(1, 16)),
    (re.compile(r"(?:^|_)(?:BLOCK|TILE)(?:_SIZE)?_K$|^BK$"), _pow2(16, 256)),
    (re.compile(r"BLOCK|TILE|^B[MN]$"), _pow2(16, 4096)),
)


def domain_for(name: str, value: int, overrides: Domains | None = None) -> tuple[int, ...]:
    """Sorted allowed values of tunable ``name`` (key or base name) that currently holds ``value``.

    ``overrides`` maps a key or base name to explicit values; raises ``ConfigError`` when an override
    holds a value that is not a positive int.
    """
    base = name.split("@", 1)[0]
    for key in (name, base):
        if overrides and key in overrides:
            values = list(overrides[key])
            if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
                raise ConfigError(f"domain override for {key} must be a non-empty list of positive ints, "
                                  f"got {values!r}")
            return tuple(sorted(set(values)))
    upper = base.upper()
    for pattern, build in _RULES:
        if pattern.search(upper):
            return tuple(sorted({*build(value), value}))
    return _around(value)


def neighbours(name: str, value: int, overrides: Domains | None = None) -> list[int]:
    """Values one step from ``value`` in its domain: the next lower and higher, and x2 / x0.5.

    On a power-of-two domain these coincide (a doubling or halving); on a dense one (stages,
    thread counts) the doubling and halving let a search cross it in a few moves. Larger values
    come first, then smaller, each list without ``value`` itself.
    """
    domain = domain_for(name, value, overrides)
    lower = [v for v in domain if v < value]
    higher = [v for v in domain if v > value]
    picks = set(lower[-1:] + higher[:1])
    picks |= {v for v in (value * 2, value // 2) if v in domain and v != value}
    return sorted((v for v in picks if v > value)) + sorted((v for v in picks if v < value), reverse=True)
