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
| anything else            | the value halved and doubled: x2^k, integers, <= 65536 |

The value a kernel ships with is always in its domain, so the seed stays a point of the search.
Callers override a domain per name with an explicit list of values.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from akg_rag.errors import ConfigError

Domains = Mapping[str, Sequence[int]]

# Largest value a free constant (one no rule names) is doubled to.
FREE_MAX = 1 << 16


def _pow2(lo: int, hi: int) -> Callable[[int], tuple[int, ...]]:
    return lambda _v: tuple(1 << k for k in range(hi.bit_length()) if lo <= 1 << k <= hi)


def _span(lo: int, hi: int, step: int = 1) -> Callable[[int], tuple[int, ...]]:
    return lambda _v: tuple(range(lo, hi + 1, step))


def _chain(value: int) -> tuple[int, ...]:
    """A free constant's domain: ``value`` halved (while it stays an integer) and doubled, <= 65536."""
    odd = value
    while odd % 2 == 0:
        odd //= 2
    out = []
    v = odd
    while v <= max(FREE_MAX, value):
        out.append(v)
        v *= 2
    return tuple(out)


# (pattern on the upper-cased base name, domain builder); the first match wins.
_RULES: tuple[tuple[re.Pattern[str], Callable[[int], tuple[int, ...]]], ...] = (
    (re.compile(r"MIN_PARALLEL"), _pow2(1024, 1 << 20)),
    # a lowered kernel's f32 dot mode (docs/lowering-triton.md)
    (re.compile(r"(?:^|_)DOT_MODE$"), lambda value: (1, 2, 3, 4)),
    (re.compile(r"(?:^|_)(?:CACHE|GRID)_MODE$"), lambda value: (1, 2)),
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
    return _chain(value)


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
    halved = [value // 2] if value % 2 == 0 else []
    picks |= {v for v in (value * 2, *halved) if v in domain and v != value}
    return sorted((v for v in picks if v > value)) + sorted((v for v in picks if v < value), reverse=True)
