"""run_search with an injected evaluator: optimum, elitism, migration, determinism, dedup, rewrites."""

from __future__ import annotations

import json
import math

import pytest

from akg_rag.errors import ConfigError
from akg_rag.search import Fitness, run_search, tunable_values
from akg_rag.verify.result import Timings, VerifyResult

SEED = "BLOCK_SIZE = 64\nNUM_WARPS = 1\nNUM_STAGES = 1\n"
OPTIMUM = {"BLOCK_SIZE": 1024, "NUM_WARPS": 4, "NUM_STAGES": 3}


def score(t: dict[str, int]) -> float:
    """A known landscape: 10 at OPTIMUM, one less per doubling (or stage) away from it."""
    return (10 - abs(math.log2(t["BLOCK_SIZE"]) - 10) - abs(math.log2(t["NUM_WARPS"]) - 2)
            - abs(t["NUM_STAGES"] - 3))


class Recorder:
    """An evaluator over the landscape that remembers every batch it was given.

    Blocks of 2048 and more are "incorrect" even though the landscape would rate them: the search
    must never keep them.
    """

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, sources: list[str]) -> list[Fitness]:
        self.batches.append(list(sources))
        out = []
        for s in sources:
            t = tunable_values(s)
            out.append(Fitness(0.0, "incorrect", "wrong values") if t["BLOCK_SIZE"] >= 2048 else Fitness(score(t)))
        return out


def search(**kw):
    kw.setdefault("evaluate", Recorder())
    kw.setdefault("generations", 8)
    return run_search(SEED, None, dsl="triton", backend="cuda", **kw)


def strip_times(d):
    """A result dict without wall-clock fields (the only part that may differ between runs)."""
    for g in d["history"]:
        g.pop("wall_s")
    return d


def test_finds_the_optimum_and_reports_it():
    r = search()
    assert r.found and r.best.tunables == OPTIMUM and r.best.value == 10.0
    assert r.seed.tunables == tunable_values(SEED) and r.speedup_over_seed == 10.0 / score(tunable_values(SEED))
    assert r.best.source == "BLOCK_SIZE = 1024\nNUM_WARPS = 4\nNUM_STAGES = 3\n"
    d = json.loads(json.dumps(r.to_dict()))
    assert len(d["history"]) == 9 and d["config"]["islands"] == 4
    member = d["history"][3]["islands"][2]["members"][0]
    assert set(member) >= {"key", "tunables", "fitness", "status", "origin", "parent", "born"}
    assert d["best"]["source"] == r.best.source and d["best"]["verdict"]["value"] == 10.0


def test_elites_survive_and_incorrect_kernels_never_do():
    r = search(elite=2)
    for prev, cur in zip(r.history, r.history[1:]):
        for p, c in zip(prev.islands, cur.islands):
            correct = sorted((m for m in p.members if m["status"] == "correct"),
                             key=lambda m: -m["fitness"])
            keys = {m["key"] for m in c.members}
            assert {m["key"] for m in correct[:2]} <= keys          # the best two always survive
            assert max(m["fitness"] for m in c.members) >= max(m["fitness"] for m in p.members)
            for m in c.members:
                if m["born"] < cur.generation:                     # carried over: an elite or migrant
                    assert m["status"] == "correct"
            assert c.best_fitness >= p.best_fitness
    assert any(m["status"] == "incorrect" for g in r.history for i in g.islands for m in i.members)
    assert r.best.fitness.status == "correct"


def test_migrants_enter_the_next_island_and_are_selected_there():
    r = search(islands=3, migrate_every=1)
    moved = selected = 0
    for g in r.history:
        assert bool(g.migrations) == (0 < g.generation < 8)          # every generation but the last
        for m in g.migrations:
            if m.replaced is None:
                continue
            moved += 1
            assert m.target == (m.source + 1) % 3
            here = [x for x in g.islands[m.target].members if x["key"] == m.key]
            assert here and here[0]["origin"] == f"migrant:{m.source}"
            assert len(g.islands[m.target].members) == 6  # it replaced a member: the size holds
            nxt = r.history[g.generation + 1].islands[m.target].members
            selected += any(x["parent"] == m.key and x["born"] == g.generation + 1 for x in nxt)
    assert moved >= 5 and selected >= 3


def test_same_seed_same_run_and_another_seed_another_run():
    a, b, c = search(seed=5), search(seed=5), search(seed=6)
    assert strip_times(a.to_dict()) == strip_times(b.to_dict())
    assert strip_times(a.to_dict())["history"] != strip_times(c.to_dict())["history"]


def test_each_distinct_source_is_evaluated_once_in_one_batch_per_generation():
    rec = Recorder()
    r = search(evaluate=rec, generations=10)
    flat = [s for batch in rec.batches for s in batch]
    assert len(flat) == len(set(flat)) == r.evaluated
    assert len(rec.batches) <= 11  # generation 0 and each of 10 generations: at most one batch each
    assert len(rec.batches[0]) > 4  # the initial islands go in one batch
    assert sum(g.evaluated for g in r.history) == r.evaluated
    assert sum(g.reused for g in r.history) > 0  # the seed (in every island) counts as reused
    # Every verified source is on record: in some population, or evicted there by a migrant.
    recorded = {m["key"] for g in r.history for i in g.islands for m in i.members}
    recorded |= {m.evicted.key for g in r.history for m in g.migrations if m.evicted}
    assert len(recorded) == r.evaluated


def test_progress_reports_every_generation_in_order():
    seen = []
    r = search(generations=3, progress=seen.append)
    assert [g.generation for g in seen] == [0, 1, 2, 3] and seen == r.history
    assert seen[-1].line().startswith("generation 3: best")


def test_rewrite_hook_makes_children_from_feedback():
    calls = []

    def rewrite(source: str, feedback: str) -> str:
        calls.append(feedback)
        return source.replace("NUM_STAGES = ", "NUM_STAGES = 3  # ") if "NUM_STAGES = 3" not in source else source

    r = search(rewrite=rewrite, rewrite_share=1.0, generations=3)
    assert calls and all(f.startswith("verdict: ") and "tunables: BLOCK_SIZE=" in f for f in calls)
    origins = {m["origin"].split(":")[0] for g in r.history[1:] for i in g.islands for m in i.members}
    assert "rewrite" in origins and "mutation" in origins  # unchanged rewrites fall back to mutation
    assert r.config["rewrite"] is True


def test_fitness_from_verdicts():
    timed = Timings(candidate_ms=1.0, eager_ms=2.5, speedup_eager=2.5, meaningful=True)
    interp = Timings(candidate_ms=9.0, eager_ms=0.1, speedup_eager=0.01, meaningful=False)
    assert Fitness.from_result(VerifyResult("correct", timings=timed)).value == 2.5
    flagged = Fitness.from_result(VerifyResult("correct", timings=timed, review=True))
    assert flagged.review and "flagged for review" in flagged.describe()
    assert Fitness.from_result(VerifyResult("correct", timings=interp)).value == 1.0
    assert Fitness.from_result(VerifyResult("correct")).value == 1.0
    wrong = Fitness.from_result(VerifyResult("incorrect", feedback="max abs error 3", timings=timed))
    assert wrong.value == 0.0 and not wrong.ok and wrong.feedback == "max abs error 3"


@pytest.mark.parametrize("kw,match", [
    ({"population": 1}, "population"), ({"elite": 6}, "elite"), ({"islands": 0}, "islands"),
    ({"migrate_every": 0}, "migrate_every"), ({"generations": -1}, "generations"),
    ({"rewrite_share": 2.0}, "rewrite_share"),
])
def test_bad_settings_raise_config_errors(kw, match):
    with pytest.raises(ConfigError, match=match):
        search(**kw)


def test_seed_without_tunables_and_wrong_evaluators_raise():
    with pytest.raises(ConfigError, match="no tunables"):
        run_search("x = 1\n", None, dsl="triton", backend="cuda", evaluate=Recorder())
    with pytest.raises(ConfigError, match="returned 0 fitnesses"):
        search(evaluate=lambda sources: [])
    with pytest.raises(ConfigError, match="unknown target"):
        run_search(SEED, None, dsl="triton", backend="tpu", evaluate=Recorder())
    with pytest.raises(ConfigError, match="unknown tunable.*BLOCK_SIZE, NUM_WARPS"):
        search(domains={"BLOK_SIZE": [64]})
    with pytest.raises(ConfigError, match="task file"):
        run_search(SEED, None, dsl="triton", backend="cuda")
