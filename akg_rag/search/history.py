"""What a search leaves behind: per-generation records and the final :class:`SearchResult`.

Everything here is JSON-ready through ``to_dict`` so a run can be written to ``history.json``,
plotted, or compared with another run. Sources appear only for the best kernel and the seed; the
history identifies every other candidate by its source key and tunables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from akg_rag.search.islands import Candidate, Migration


@dataclass
class IslandRecord:
    """One island after one generation (after migration, when the generation had one)."""

    island: int
    members: list[dict[str, Any]]   # Candidate.summary() of each member, in population order
    best_fitness: float             # best fitness this island has seen so far, 0 if none correct
    best_key: str | None            # key of that candidate

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dict(self.__dict__)


@dataclass
class GenerationRecord:
    """One generation: every island's population, what was verified, and the migrations."""

    generation: int                 # 0 = the initial population
    islands: list[IslandRecord]
    evaluated: int                  # distinct new sources verified in this generation
    reused: int                     # new members whose source was verified before (no new run)
    best_fitness: float             # best fitness over all islands so far
    wall_s: float                   # seconds the generation took, verification included
    migrations: list[Migration] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"generation": self.generation, "islands": [i.to_dict() for i in self.islands],
                "evaluated": self.evaluated, "reused": self.reused, "best_fitness": self.best_fitness,
                "wall_s": round(self.wall_s, 3), "migrations": [m.to_dict() for m in self.migrations]}

    def line(self) -> str:
        """One progress line: the generation, best fitness so far per island, and verifications."""
        per = " ".join(f"{r.best_fitness:.3g}" for r in self.islands)
        moved = sum(1 for m in self.migrations if m.replaced)
        mig = f", {moved} migrant(s)" if self.migrations else ""
        return (f"generation {self.generation}: best {self.best_fitness:.3g}x; per island [{per}]; "
                f"{self.evaluated} verified, {self.reused} reused{mig} ({self.wall_s:.1f} s)")


def candidate_dict(c: Candidate) -> dict[str, Any]:
    """A candidate with its source and full fitness (timings, feedback): for the best and the seed."""
    d = c.summary()
    d["source"] = c.source
    d["verdict"] = c.fitness.to_dict() if c.fitness else None
    return d


@dataclass
class SearchResult:
    """The outcome of :func:`akg_rag.search.run_search`."""

    best: Candidate                 # the fittest correct candidate (the seed when none is correct)
    seed: Candidate                 # the seed as verified
    history: list[GenerationRecord]
    evaluated: int                  # distinct sources verified over the whole run
    config: dict[str, Any]          # the parameters of the run

    @property
    def found(self) -> bool:
        """True when at least one correct kernel was found."""
        return self.best.ok

    @property
    def speedup_over_seed(self) -> float | None:
        """Best fitness / seed fitness, when both are correct."""
        if not (self.best.ok and self.seed.ok and self.seed.value):
            return None
        return self.best.value / self.seed.value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the whole run."""
        return {"best": candidate_dict(self.best), "seed": candidate_dict(self.seed),
                "found": self.found, "speedup_over_seed": self.speedup_over_seed,
                "evaluated": self.evaluated, "config": dict(self.config),
                "history": [g.to_dict() for g in self.history]}
