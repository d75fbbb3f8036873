"""A small search verified for real: Triton interpreter, LocalExecutor, correctness and migration.

Under the interpreter timings mean nothing, so every correct kernel scores 1.0 and the assertions
are about correctness and migration, never speed. The fixture is correct exactly when its fixed
grid covers the input (NUM_PROGRAMS * BLOCK_SIZE >= 1028), which lets the test check every
verdict the search recorded against that rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.search import run_search
from akg_rag.verify.executor import LocalExecutor
from akg_rag.verify.options import VerifyOptions

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "knowledge" / "kernels" / "relu" / "task.py"
SEED = Path(__file__).parent / "fixtures" / "relu_fixed_grid.py"
ELEMENTS = 4 * 257  # the relu task's input at small scale


class BatchLog(LocalExecutor):
    """The real local executor, recording the size of every batch it is given."""

    def __init__(self, jobs: int) -> None:
        super().__init__(jobs=jobs)
        self.batches: list[int] = []

    def map(self, jobs):
        self.batches.append(len(jobs))
        return super().map(jobs)


@pytest.fixture(scope="module")
def result():
    # Four children at once: each spends most of its ~10 s importing torch, which overlaps well.
    executor = BatchLog(jobs=4)
    r = run_search(SEED.read_text(), TASK, dsl="triton", backend="cpu", islands=2, population=2,
                   generations=2, migrate_every=1, executor=executor, seed=0,
                   options=VerifyOptions(trials=1, timing=False, scale="small"))
    return r, executor


def test_verdicts_follow_the_grid_coverage_rule(result):
    r, _ = result
    members = [m for g in r.history for i in g.islands for m in i.members]
    members += [m.to_dict()["evicted"] for g in r.history for m in g.migrations if m.evicted]
    assert len({m["key"] for m in members}) == r.evaluated >= 5
    for m in members:
        covers = m["tunables"]["NUM_PROGRAMS"] * m["tunables"]["BLOCK_SIZE"] >= ELEMENTS
        assert (m["status"] == "correct") == covers, m
        assert m["fitness"] == (1.0 if covers else 0.0)  # interpreter: correct = 1.0, whatever the time
    assert r.seed.fitness.status == "incorrect" and "NaN" in r.seed.fitness.feedback
    assert r.found and not r.best.fitness.meaningful
    assert r.best.tunables["NUM_PROGRAMS"] * r.best.tunables["BLOCK_SIZE"] >= ELEMENTS


def test_each_generation_verifies_in_one_parallel_batch(result):
    r, executor = result
    assert executor.batches == [g.evaluated for g in r.history if g.evaluated]
    assert sum(executor.batches) == r.evaluated


def test_a_correct_migrant_replaces_an_incorrect_member_and_breeds(result):
    r, _ = result
    moves = [m for g in r.history for m in g.migrations if m.replaced]
    assert moves, "expected a migration after generation 1"
    for m in moves:
        target = r.history[m.generation].islands[m.target].members
        assert any(x["key"] == m.key and x["origin"] == f"migrant:{m.source}" for x in target)
        nxt = r.history[m.generation + 1].islands[m.target].members
        assert any(x["key"] == m.key or x["parent"] == m.key for x in nxt)
