"""The island model: candidates, islands of them, selection, elitism and migration.

Each island is a population of candidates that evolves on its own; every few generations the best
of island ``i`` is copied into island ``(i + 1) % N`` in place of that island's worst member. The
copy is an ordinary member there: it can be selected as a parent and survive as an elite, which is
how a good schedule found on one island spreads to the others.

Order is fitness first, then age (earlier born wins a tie), then position: the same inputs and the
same ``random.Random`` state always give the same choices.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field, replace
from typing import Any

from akg_rag.search.fitness import Fitness

# Candidates drawn per tournament; 2 keeps selection pressure mild so weaker schedules still breed.
TOURNAMENT = 2


def source_key(source: str) -> str:
    """Identity of a candidate: sha256[:16] of its source (dedup and cache key)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


@dataclass
class Candidate:
    """One member of an island: its source, tunables, how it was made, and its fitness once known."""

    source: str
    tunables: dict[str, int]
    origin: str                  # "seed", "mutation:A=1,B=2", "rewrite", "migrant:<from island>"
    born: int                    # generation it was made in (0 = the initial population)
    parent: str | None = None    # key of the candidate it was made from
    fitness: Fitness | None = None
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = source_key(self.source)

    @property
    def value(self) -> float:
        """Fitness value; 0 until evaluated and for every incorrect kernel."""
        return self.fitness.value if self.fitness is not None and self.fitness.ok else 0.0

    @property
    def score(self) -> float:
        """Ranking value: the lower bound of the speedup's interval (see Fitness.score); 0 if incorrect."""
        return self.fitness.score if self.fitness is not None and self.fitness.ok else 0.0

    @property
    def ok(self) -> bool:
        """True once verified correct."""
        return self.fitness is not None and self.fitness.ok

    def summary(self) -> dict[str, Any]:
        """JSON-ready record without the source: key, tunables, origin, fitness, status."""
        f = self.fitness
        return {"key": self.key, "tunables": dict(self.tunables), "origin": self.origin,
                "born": self.born, "parent": self.parent, "fitness": self.value, "score": self.score,
                "status": f.status if f else "pending", "meaningful": f.meaningful if f else None,
                "review": f.review if f else False}


def rank_key(c: Candidate, position: int) -> tuple[float, float, int, int]:
    """Sort key of a candidate (ascending = better): the speedup's lower bound (Fitness.score),
    then its estimate, then age, then position."""
    return (-c.score, -c.value, c.born, position)


@dataclass
class Island:
    """A population of candidates that breeds on its own between migrations."""

    index: int
    members: list[Candidate] = field(default_factory=list)

    def ranked(self) -> list[Candidate]:
        """Members best first (see :func:`rank_key`)."""
        order = sorted(range(len(self.members)), key=lambda i: rank_key(self.members[i], i))
        return [self.members[i] for i in order]

    def elites(self, k: int) -> list[Candidate]:
        """The best ``k`` *correct* members (fewer when fewer are correct)."""
        return [c for c in self.ranked() if c.ok][:k]

    def best(self) -> Candidate | None:
        """The best correct member, or None."""
        top = self.elites(1)
        return top[0] if top else None

    def worst_index(self) -> int:
        """Position of the worst member (lowest fitness; the youngest, then the last, on a tie)."""
        return max(range(len(self.members)), key=lambda i: rank_key(self.members[i], i))

    def select(self, rng: random.Random) -> Candidate:
        """A parent by tournament: the best of ``TOURNAMENT`` members drawn without replacement."""
        drawn = rng.sample(range(len(self.members)), min(TOURNAMENT, len(self.members)))
        return self.members[min(drawn, key=lambda i: rank_key(self.members[i], i))]


@dataclass
class Migration:
    """One migrant: the best of ``source`` copied into ``target`` in place of ``replaced``."""

    generation: int
    source: int                  # island it left
    target: int                  # island it entered
    key: str                     # the migrant's source key
    fitness: float
    replaced: str | None         # key of the member it replaced; None when it was not inserted
    note: str = ""               # why it was not inserted, when it was not
    evicted: Candidate | None = field(default=None, repr=False)  # the member it replaced

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; the evicted member as its summary (its verdict stays on record)."""
        d = {k: v for k, v in self.__dict__.items() if k != "evicted"}
        d["evicted"] = self.evicted.summary() if self.evicted is not None else None
        return d


def migrate(islands: list[Island], generation: int, elite: int = 1) -> list[Migration]:
    """Copy the best correct member of each island into the next one, replacing its worst.

    Migrants are chosen from a snapshot taken before any island receives one, so a kernel moves at
    most one island per migration. A migrant is not inserted when the target already holds the
    same source, or when the target's worst member is one of its ``elite`` best (a population no
    larger than its elite count) and fitter than the migrant.
    """
    if len(islands) < 2:
        return []
    bests = [isl.best() for isl in islands]
    out: list[Migration] = []
    for isl, best in zip(islands, bests):
        if best is None:
            continue
        target = islands[(isl.index + 1) % len(islands)]
        m = Migration(generation, isl.index, target.index, best.key, best.value, None)
        if any(c.key == best.key for c in target.members):
            m.note = "already present"
        else:
            i = target.worst_index()
            worst = target.members[i]
            if worst.score > best.score and any(worst is e for e in target.elites(elite)):
                m.note = "target's worst is one of its elites and fitter"
            else:
                m.replaced, m.evicted = worst.key, worst
                target.members[i] = replace(best, origin=f"migrant:{isl.index}", born=generation,
                                            parent=best.key)
        out.append(m)
    return out
