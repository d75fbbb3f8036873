"""Offline mutations of a kernel: neighbour moves on its tunables, random or enumerated.

This is the one place that turns a kernel into variants of itself without an LLM. The island search
draws random moves (:func:`mutate`); the agent graph's optimisation pass walks single-change
variants in a fixed order (:func:`variants`, :func:`next_variant`) and remembers which points it
tried by their :func:`~akg_rag.search.tunables.settings` string.

Given the task's problem ``sizes`` (:func:`~akg_rag.search.relevance.task_sizes`), moves that cannot
change the executed code for those shapes are left out and recorded in ``skipped``
(:mod:`~akg_rag.search.relevance` has the rules).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from akg_rag.search.domains import Domains, neighbours
from akg_rag.search.relevance import Skipped, why_irrelevant
from akg_rag.search.tunables import Tunable, find_tunables, rewrite, settings, tunable_values

# Share of random mutations that move two tunables at once instead of one: a second coordinate
# lets the search step diagonally (e.g. a larger block with more warps) in one generation.
TWO_MOVE_SHARE = 0.35


@dataclass
class Variant:
    """A source with some tunables changed: the code, the change (``A=1,B=2``), its full settings."""

    code: str
    change: str
    settings: str


def _moves(t: Tunable, domains: Domains | None, sizes: frozenset[int] | None,
           skipped: list[Skipped] | None) -> list[int]:
    """Neighbour values of ``t`` that may change the executed code; the others go to ``skipped``."""
    out = []
    for value in neighbours(t.name, t.value, domains):
        reason = why_irrelevant(t.name, t.value, value, sizes)
        if reason is None:
            out.append(value)
        elif skipped is not None and all(s.change != f"{t.name}={value}" for s in skipped):
            skipped.append(Skipped(f"{t.name}={value}", reason))
    return out


def variants(code: str, *, domains: Domains | None = None, names: set[str] | None = None,
             sizes: frozenset[int] | None = None, skipped: list[Skipped] | None = None) -> list[Variant]:
    """Single-change variants of ``code``: each tunable moved to each neighbour, larger first.

    With ``sizes``, moves that cannot matter for them are left out (and appended to ``skipped``).
    """
    out: list[Variant] = []
    for t in find_tunables(code, names):
        for value in _moves(t, domains, sizes, skipped):
            new = rewrite(code, {t.name: value})
            out.append(Variant(new, f"{t.name}={value}", settings(new)))
    return out


def next_variant(code: str, tried: list[str] | set[str], *, domains: Domains | None = None,
                 names: set[str] | None = None, sizes: frozenset[int] | None = None,
                 skipped: list[Skipped] | None = None) -> Variant | None:
    """The first single-change variant whose settings are not in ``tried`` (None when none is left)."""
    for v in variants(code, domains=domains, names=names, sizes=sizes, skipped=skipped):
        if v.settings not in tried:
            return v
    return None


def mutate(code: str, rng: random.Random, *, domains: Domains | None = None,
           names: set[str] | None = None, moves: int | None = None,
           sizes: frozenset[int] | None = None, skipped: list[Skipped] | None = None) -> Variant | None:
    """A random neighbour of ``code``: one tunable moved (or two, ``TWO_MOVE_SHARE`` of the time).

    ``moves`` forces the number of tunables moved. Returns None when ``code`` has no tunable with
    a neighbour (that matters, given ``sizes``). The draw depends only on ``rng``'s state and ``code``.
    """
    options = {t.name: _moves(t, domains, sizes, skipped) for t in find_tunables(code, names)}
    movable = [t for t in find_tunables(code, names) if options[t.name]]
    if not movable:
        return None
    if moves is None:
        moves = 2 if len(movable) > 1 and rng.random() < TWO_MOVE_SHARE else 1
    chosen: list[Tunable] = rng.sample(movable, min(moves, len(movable)))
    chosen.sort(key=lambda t: t.start)
    changes = {t.name: rng.choice(options[t.name]) for t in chosen}
    new = rewrite(code, changes)
    return Variant(new, ",".join(f"{k}={v}" for k, v in changes.items()), settings(new))


def random_walk(code: str, rng: random.Random, steps: int, *, domains: Domains | None = None,
                names: set[str] | None = None, sizes: frozenset[int] | None = None,
                skipped: list[Skipped] | None = None) -> Variant | None:
    """``steps`` successive random mutations of ``code`` (spreads an initial population)."""
    current: Variant | None = None
    for _ in range(steps):
        nxt = mutate(current.code if current else code, rng, domains=domains, names=names,
                     sizes=sizes, skipped=skipped)
        if nxt is None:
            break
        current = nxt
    if current is None:
        return None
    before = tunable_values(code, names)
    after = tunable_values(current.code, names)
    change = ",".join(f"{k}={v}" for k, v in after.items() if before.get(k) != v)
    return Variant(current.code, change, current.settings)
