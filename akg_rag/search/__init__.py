"""Island-model evolutionary search over a kernel's tunables (layer 1: stdlib, torch, triton).

``run_search(seed_source, task, dsl=..., backend=...)`` evolves a verified kernel's schedule on
several islands and returns the fastest correct variant with the full history. The pieces:

* :mod:`~akg_rag.search.tunables` -- find a candidate's tunables and rewrite them exactly;
* :mod:`~akg_rag.search.domains`  -- the values each tunable may take, and its neighbours;
* :mod:`~akg_rag.search.mutate`   -- random and enumerated neighbour moves (used by the agent graph too);
* :mod:`~akg_rag.search.fitness`  -- fitness from a verdict, and the executor-backed evaluator;
* :mod:`~akg_rag.search.islands`  -- candidates, islands, selection, elitism and migration;
* :mod:`~akg_rag.search.evolution` -- the generation loop behind ``run_search``;
* :mod:`~akg_rag.search.history`  -- per-generation records and the JSON-ready result.

Importing this package imports neither torch nor the verifier; verification starts in ``run_search``.
"""

from akg_rag.search.domains import domain_for, neighbours
from akg_rag.search.evolution import run_search
from akg_rag.search.fitness import Fitness, VerifierEvaluator
from akg_rag.search.history import GenerationRecord, SearchResult
from akg_rag.search.islands import Candidate, Island, Migration, migrate
from akg_rag.search.mutate import Variant, mutate, next_variant, variants
from akg_rag.search.tunables import Tunable, find_tunables, rewrite, settings, tunable_values

__all__ = [
    "Candidate", "Fitness", "GenerationRecord", "Island", "Migration", "SearchResult", "Tunable",
    "Variant", "VerifierEvaluator", "domain_for", "find_tunables", "migrate", "mutate", "neighbours",
    "next_variant", "rewrite", "run_search", "settings", "tunable_values", "variants",
]
