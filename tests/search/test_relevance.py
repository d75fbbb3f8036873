"""Moves that cannot change the executed code for a task's shapes are skipped, and counted."""

from __future__ import annotations

import random
from pathlib import Path

from akg_rag.search.mutate import mutate, next_variant, variants
from akg_rag.search.relevance import is_threshold, problem_sizes, task_sizes, why_irrelevant

ROOT = Path(__file__).resolve().parents[2]
SEED = """
TILE = 256
MIN_PARALLEL_ELEMENTS = 32768
"""


def test_problem_sizes_cover_numel_rows_and_every_dim_product():
    sizes = problem_sizes([(128, 4096), (16, 256, 256)])
    assert {128, 4096, 128 * 4096, 16, 256, 16 * 256, 256 * 256, 16 * 256 * 256} <= sizes
    assert problem_sizes([(4, -1)]) is None  # a dynamic dim: nothing can be ruled out


def test_a_threshold_move_no_size_crosses_cannot_matter():
    sizes = problem_sizes([(128, 4096)])  # 524,288 elements
    assert why_irrelevant("MIN_PARALLEL_ELEMENTS", 32768, 65536, sizes)
    assert why_irrelevant("MIN_PARALLEL_ELEMENTS", 32768, 16384, sizes)
    # 4096 (the row length) lies between these two: the comparison may flip
    assert why_irrelevant("MIN_PARALLEL_ELEMENTS", 2048, 8192, sizes) is None
    # 1 << 20 is above the problem: the kernel would go serial
    assert why_irrelevant("MIN_PARALLEL_ELEMENTS", 524288 // 2, 1 << 20, sizes) is None
    assert why_irrelevant("TILE", 256, 512, sizes) is None  # not a threshold: kept
    assert why_irrelevant("MIN_PARALLEL_ELEMENTS", 32768, 65536, None) is None  # sizes unknown: kept


def test_threshold_names():
    assert is_threshold("MIN_PARALLEL_ELEMENTS") and is_threshold("SERIAL_CUTOFF")
    assert not is_threshold("TILE") and not is_threshold("MAX_PARTIALS") and not is_threshold("NUM_WARPS")


def test_variants_skip_and_report_moves_that_cannot_matter():
    sizes = problem_sizes([(128, 4096)])
    skipped: list = []
    found = variants(SEED, sizes=sizes, skipped=skipped)
    assert {v.change for v in found} == {"TILE=512", "TILE=128"}
    assert sorted(s.change for s in skipped) == ["MIN_PARALLEL_ELEMENTS=16384", "MIN_PARALLEL_ELEMENTS=65536"]
    assert all("no problem size" in s.reason for s in skipped)
    # without sizes every neighbour is a variant, as before
    assert len(variants(SEED)) == 4


def test_next_variant_is_none_when_only_irrelevant_moves_are_left():
    code = "MIN_PARALLEL_ELEMENTS = 32768\n"
    skipped: list = []
    assert next_variant(code, [], sizes=problem_sizes([(128, 4096)]), skipped=skipped) is None
    assert len(skipped) == 2


def test_random_mutations_never_draw_a_skipped_move():
    sizes = problem_sizes([(128, 4096)])
    rng = random.Random(0)
    for _ in range(50):
        v = mutate(SEED, rng, sizes=sizes)
        assert v is not None and "MIN_PARALLEL" not in v.change


def test_task_sizes_follow_the_verification_scale():
    task = ROOT / "knowledge" / "kernels" / "max_reduction" / "task.py"
    full, small = task_sizes(str(task), "full"), task_sizes(str(task), "small")
    assert 16 * 256 * 256 in full and 3 * 37 * 53 in small and 3 * 37 * 53 not in full


def test_the_search_skips_threshold_moves_the_task_cannot_cross():
    from akg_rag.search import Fitness, run_search
    from akg_rag.search.tunables import tunable_values

    seen: list[dict] = []

    def evaluate(sources):
        seen.extend(tunable_values(s) for s in sources)
        return [Fitness(1.0 + tunable_values(s)["TILE"] / 1e4) for s in sources]

    result = run_search(SEED, ROOT / "examples" / "softmax_task.py", dsl="cpp", backend="cpu", islands=2,
                        population=3, generations=2, evaluate=evaluate)
    assert all(v["MIN_PARALLEL_ELEMENTS"] == 32768 for v in seen)  # 128 x 4096: no move crosses a size
    assert any(m["change"].startswith("MIN_PARALLEL_ELEMENTS=") for m in result.config["skipped_moves"])
