"""``run_search``: island-model evolution of a kernel's schedule, verified in batches.

Generation 0 fills every island with the seed and random walks from it. Each later generation
keeps each island's ``elite`` best correct members and fills the rest with children of
tournament-selected parents: a neighbour move on one or two tunables, or, with a ``rewrite`` hook,
sometimes a rewrite of the parent steered by its verdict. All new sources of a generation, across
all islands, go to the evaluator as one batch, so an executor verifies them in parallel; a source
is never verified twice. Every ``migrate_every`` generations the best of each island moves to the
next one (see :mod:`akg_rag.search.islands`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from akg_rag.errors import ConfigError
from akg_rag.search.domains import Domains
from akg_rag.search.fitness import Evaluate, Fitness, MapExecutor, VerifierEvaluator
from akg_rag.search.history import GenerationRecord, IslandRecord, SearchResult
from akg_rag.search.islands import Candidate, Island, Migration, migrate, source_key
from akg_rag.search.mutate import mutate, random_walk
from akg_rag.search.relevance import Skipped
from akg_rag.search.tunables import tunable_values

# Mutations tried per child to find a source not verified yet before settling for a known one.
NOVELTY_TRIES = 16
# Longest random walk (tunable moves) from the seed when filling the initial islands.
INITIAL_WALK = 3

Rewrite = Callable[[str, str], str]
Progress = Callable[[GenerationRecord], None]


@dataclass
class _Config:
    islands: int
    population: int
    generations: int
    migrate_every: int
    elite: int
    rewrite_share: float

    def check(self) -> None:
        """Raise ``ConfigError`` for a setting the search cannot run with."""
        if self.islands < 1:
            raise ConfigError(f"islands must be >= 1, got {self.islands}")
        if self.population < 2:
            raise ConfigError(f"population must be >= 2, got {self.population}")
        if not 0 <= self.elite < self.population:
            raise ConfigError(f"elite must be in 0..population-1 ({self.population - 1}), got {self.elite}")
        if self.generations < 0:
            raise ConfigError(f"generations must be >= 0, got {self.generations}")
        if self.migrate_every < 1:
            raise ConfigError(f"migrate_every must be >= 1, got {self.migrate_every}")
        if not 0.0 <= self.rewrite_share <= 1.0:
            raise ConfigError(f"rewrite_share must be in [0, 1], got {self.rewrite_share}")


def run_search(seed_source: str, task: str | Path | None, *, dsl: str, backend: str, islands: int = 4,
               population: int = 6, generations: int = 5, migrate_every: int = 2, elite: int = 1,
               executor: MapExecutor | None = None, evaluate: Evaluate | None = None, seed: int = 0,
               options: Any = None, progress: Progress | None = None, rewrite: Rewrite | None = None,
               rewrite_share: float = 0.25, domains: Domains | None = None,
               names: set[str] | None = None, sizes: frozenset[int] | None = None,
               filter_moves: bool = True) -> SearchResult:
    """Evolve ``seed_source`` for ``task`` on ``dsl``/``backend`` and return the best kernel found.

    ``evaluate`` (``list[str] -> list[Fitness]``) replaces verification; otherwise candidates are
    verified with ``options`` (``VerifyOptions``) through ``executor`` (a ``LocalExecutor`` by
    default). ``rewrite(source, feedback) -> source`` makes ``rewrite_share`` of the children when
    given. ``domains`` overrides tunable domains by name; ``names`` restricts which tunables move.
    Moves that cannot change the executed code for the task's problem ``sizes`` (by default read from
    ``task`` at the options' scale; ``filter_moves=False`` keeps every move) are skipped and listed
    in ``config["skipped_moves"]``.
    ``progress`` is called with each generation's record. Deterministic for a given ``seed`` when
    the evaluator and the rewrite hook are. Raises ``ConfigError`` on bad settings or a seed with
    nothing to mutate.
    """
    from akg_rag.dsl import check_target

    check_target(dsl, backend)
    cfg = _Config(islands, population, generations, migrate_every, elite, rewrite_share)
    cfg.check()
    if evaluate is None:
        from akg_rag.verify.options import VerifyOptions

        if task is None:
            raise ConfigError("run_search needs a task file to verify against (or an evaluate function)")
        # Fitness is the speedup vs eager: timing torch.compile of the reference would only cost time.
        options = options if options is not None else VerifyOptions(compile_baseline=False)
        evaluate = VerifierEvaluator(task, dsl, backend, options, executor)
    found = tunable_values(seed_source, names)
    if not found and rewrite is None:
        raise ConfigError("the seed candidate has no tunables to mutate: give it module-level UPPER_CASE "
                          "int constants (e.g. BLOCK_SIZE = 1024), or pass a rewrite hook")
    unknown = sorted(set(domains or {}) - set(found) - {k.split("@", 1)[0] for k in found})
    if unknown:
        raise ConfigError(f"domain given for unknown tunable(s) {unknown}; the seed has: "
                          f"{', '.join(found) or 'none'}")
    if filter_moves and sizes is None and task is not None:
        from akg_rag.search.relevance import task_sizes

        sizes = task_sizes(str(task), getattr(options, "scale", None))
    run = _Search(cfg, evaluate, random.Random(seed), rewrite, domains, names, progress,
                  sizes if filter_moves else None)
    history = run.evolve(seed_source)
    config = {"islands": islands, "population": population, "generations": generations,
              "migrate_every": migrate_every, "elite": elite, "seed": seed, "dsl": dsl, "backend": backend,
              "task": None if task is None else str(task), "rewrite": rewrite is not None,
              "rewrite_share": rewrite_share if rewrite is not None else 0.0,
              "options": options.to_dict() if hasattr(options, "to_dict") else options,
              "skipped_moves": [{"change": k.change, "reason": k.reason} for k in run.skipped]}
    assert run.best is not None and run.seed is not None
    return SearchResult(run.best, run.seed, history, len(run.cache), config)


class _Search:
    """The state of one run: islands, the fitness cache, and the best candidates so far."""

    def __init__(self, cfg: _Config, evaluate: Evaluate, rng: random.Random, rewrite: Rewrite | None,
                 domains: Domains | None, names: set[str] | None, progress: Progress | None,
                 sizes: frozenset[int] | None = None) -> None:
        self.cfg, self.evaluate, self.rng, self.rewrite = cfg, evaluate, rng, rewrite
        self.domains, self.names, self.progress = domains, names, progress
        self.sizes = sizes                      # problem sizes: moves that cannot matter are skipped
        self.skipped: list[Skipped] = []        # those moves, each once, with the reason
        self.cache: dict[str, Fitness] = {}     # source key -> fitness: nothing is verified twice
        self.islands = [Island(i) for i in range(cfg.islands)]
        self.island_best: list[Candidate | None] = [None] * cfg.islands
        self.best: Candidate | None = None
        self.seed: Candidate | None = None

    def evolve(self, seed_source: str) -> list[GenerationRecord]:
        """Run generation 0 and ``generations`` more; return their records."""
        history = []
        started = time.monotonic()
        self.seed = self._candidate(seed_source, "seed", 0, None)
        for island in self.islands:
            island.members = [self.seed]
            for slot in range(1, self.cfg.population):
                island.members.append(self._initial(slot))
        history.append(self._finish(0, started, *self._settle(), []))
        for gen in range(1, self.cfg.generations + 1):
            started = time.monotonic()
            taken: set[str] = set()
            for island in self.islands:
                keep = island.elites(self.cfg.elite)
                taken |= {c.key for isl in self.islands for c in isl.members}
                children = [self._child(island.select(self.rng), gen, taken)
                            for _ in range(self.cfg.population - len(keep))]
                island.members = keep + children
            counts = self._settle()
            migrations = []
            if gen % self.cfg.migrate_every == 0 and gen < self.cfg.generations:
                migrations = migrate(self.islands, gen, self.cfg.elite)
            history.append(self._finish(gen, started, *counts, migrations))
        return history

    # --- making candidates ----------------------------------------------------------------------

    def _candidate(self, source: str, origin: str, born: int, parent: str | None) -> Candidate:
        return Candidate(source, tunable_values(source, self.names), origin, born, parent)

    def _initial(self, slot: int) -> Candidate:
        """A random walk of 1..INITIAL_WALK moves from the seed, new to every island if possible."""
        assert self.seed is not None
        taken = {c.key for isl in self.islands for c in isl.members}
        walk = None
        for _ in range(NOVELTY_TRIES):
            walk = random_walk(self.seed.source, self.rng, 1 + (slot - 1) % INITIAL_WALK,
                               domains=self.domains, names=self.names, sizes=self.sizes,
                               skipped=self.skipped)
            if walk is None or source_key(walk.code) not in taken:
                break
        if walk is None or not walk.change:
            return self._candidate(self.seed.source, "seed", 0, None)
        return self._candidate(walk.code, f"mutation:{walk.change}", 0, self.seed.key)

    def _child(self, parent: Candidate, gen: int, taken: set[str]) -> Candidate:
        """A rewrite (``rewrite_share`` of the time, with a hook) or a tunable mutation of ``parent``.

        ``taken`` holds keys already in some population this generation; the child's key joins it.
        """
        child = None
        if self.rewrite is not None and self.rng.random() < self.cfg.rewrite_share:
            new = self.rewrite(parent.source, _feedback(parent))
            if new and new.strip() and source_key(new) != parent.key:
                child = self._candidate(new, "rewrite", gen, parent.key)
        if child is None:
            variant = None
            for _ in range(NOVELTY_TRIES):
                variant = mutate(parent.source, self.rng, domains=self.domains, names=self.names,
                                 sizes=self.sizes, skipped=self.skipped)
                if variant is None:
                    break
                key = source_key(variant.code)
                if key not in self.cache and key not in taken:
                    break
            child = (self._candidate(variant.code, f"mutation:{variant.change}", gen, parent.key)
                     if variant is not None else self._candidate(parent.source, "clone", gen, parent.key))
        taken.add(child.key)
        return child

    # --- evaluating and recording ---------------------------------------------------------------

    def _settle(self) -> tuple[int, int]:
        """Verify every member without a fitness, new sources only and in one batch.

        Returns ``(verified, reused)``: distinct sources verified now, members whose source was
        verified before.
        """
        members = [c for isl in self.islands for c in isl.members if c.fitness is None]
        fresh: dict[str, str] = {}
        for c in members:
            if c.key not in self.cache:
                fresh.setdefault(c.key, c.source)
        results = self.evaluate(list(fresh.values())) if fresh else []
        if len(results) != len(fresh):
            raise ConfigError(f"the evaluator returned {len(results)} fitnesses for {len(fresh)} sources")
        self.cache.update(zip(fresh, results))
        for c in members:
            c.fitness = self.cache[c.key]
        return len(fresh), len(members) - len(fresh)

    def _finish(self, gen: int, started: float, verified: int, reused: int,
                migrations: list[Migration]) -> GenerationRecord:
        """Update the bests, record the generation (after migration) and report progress."""
        for isl in self.islands:
            for c in isl.members:
                self._note_best(isl.index, c)
        islands = []
        for isl in self.islands:
            b = self.island_best[isl.index]
            islands.append(IslandRecord(isl.index, [c.summary() for c in isl.members],
                                        b.value if b else 0.0, b.key if b else None))
        best = self.best.value if self.best is not None else 0.0
        record = GenerationRecord(gen, islands, verified, reused, best, time.monotonic() - started, migrations)
        if self.progress:
            self.progress(record)
        return record

    def _note_best(self, island: int, c: Candidate) -> None:
        """Track the best so far, overall and per island (a later equal never displaces it)."""
        if self.best is None or (c.ok and not self.best.ok) or (c.ok and _beats(c, self.best)):
            self.best = c
        held = self.island_best[island]
        if c.ok and (held is None or _beats(c, held)):
            self.island_best[island] = c


def _beats(c: Candidate, held: Candidate) -> bool:
    """``c`` displaces ``held`` only with a higher lower bound of its speedup (then a higher estimate)."""
    return (c.score, c.value) > (held.score, held.value)


def _feedback(c: Candidate) -> str:
    """What a rewrite hook is told about its parent: verdict, speedup, tunables, verifier feedback."""
    f = c.fitness
    lines = [f"verdict: {f.describe() if f else 'not verified'}",
             "tunables: " + (", ".join(f"{k}={v}" for k, v in c.tunables.items()) or "none")]
    if f is not None and f.feedback:
        lines.append(f.feedback)
    return "\n".join(lines)
