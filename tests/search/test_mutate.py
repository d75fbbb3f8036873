"""Domains by name, neighbour moves, random mutations and the enumerated variants the graph walks."""

from __future__ import annotations

import random

import pytest

from akg_rag.errors import ConfigError
from akg_rag.search.domains import domain_for, neighbours
from akg_rag.search.mutate import mutate, next_variant, random_walk, variants
from akg_rag.search.tunables import settings, tunable_values

POW2 = {1 << k for k in range(21)}


@pytest.mark.parametrize("name,value,lo,hi", [
    ("BLOCK_SIZE", 1024, 16, 4096), ("BLOCK_M", 128, 16, 4096), ("TILE_N", 64, 16, 4096),
    ("ROWSUM_BLOCK", 32, 16, 4096), ("BM", 64, 16, 4096), ("BLOCK_K", 32, 16, 256),
    ("BK", 16, 16, 256), ("NUM_WARPS", 4, 1, 16), ("num_warps@2", 8, 1, 16), ("VEC", 4, 1, 8),
    ("MIN_PARALLEL_ELEMENTS", 32768, 1024, 1 << 20), ("UNROLL", 4, 1, 16),
])
def test_power_of_two_domains_by_name(name, value, lo, hi):
    assert domain_for(name, value) == tuple(sorted(v for v in POW2 if lo <= v <= hi))


def test_dense_and_free_domains():
    assert domain_for("NUM_STAGES", 3) == (1, 2, 3, 4, 5, 6)
    assert domain_for("THREADS", 256) == tuple(range(32, 1025, 32))
    assert domain_for("GROUP_M", 8)[:5] == (1, 2, 4, 8, 16) and max(domain_for("GROUP_M", 8)) == 1 << 16
    assert domain_for("CHUNK", 3)[:4] == (3, 6, 12, 24)       # x0.5 / x2 chain through the value
    assert domain_for("CHUNK", 24) == domain_for("CHUNK", 3)   # the same chain from any point on it
    assert domain_for("K0_DOT_MODE", 3) == (1, 2, 3, 4)        # a lowered f32 dot's modes
    assert domain_for("K1_CACHE_MODE", 2) == (1, 2)            # a lowered pass's L2 hints: off, on
    assert domain_for("K0_GRID_MODE", 1) == (1, 2)             # ... and its grid: per point, L2-sized


def test_shipped_value_outside_the_rule_stays_in_the_domain():
    assert domain_for("BLOCK_M", 8)[:2] == (8, 16)
    assert neighbours("BLOCK_M", 8) == [16]


def test_overrides_replace_the_rule():
    assert domain_for("BLOCK_SIZE", 1024, {"BLOCK_SIZE": [256, 1024, 512]}) == (256, 512, 1024)
    assert neighbours("num_warps@2", 4, {"num_warps": [2, 4]}) == [2]
    with pytest.raises(ConfigError, match="positive ints"):
        domain_for("BLOCK_SIZE", 1024, {"BLOCK_SIZE": [0, 64]})


def test_neighbours_are_adjacent_and_doubling_moves():
    assert neighbours("BLOCK_SIZE", 1024) == [2048, 512]
    assert neighbours("BLOCK_SIZE", 4096) == [2048]
    assert neighbours("NUM_STAGES", 3) == [4, 6, 2]
    assert neighbours("THREADS", 256) == [288, 512, 224, 128]


SEED = """
BLOCK_M = 128
BLOCK_K = 32
NUM_WARPS = 8
NUM_STAGES = 3
GROUP_M = 8
THREADS = 256
"""


def test_random_mutations_stay_in_their_domains_and_move_one_or_two():
    rng = random.Random(1)
    start = tunable_values(SEED)
    moved = set()
    for _ in range(300):
        v = mutate(SEED, rng)
        after = tunable_values(v.code)
        changed = [k for k in start if after[k] != start[k]]  # source order
        assert 1 <= len(changed) <= 2 and v.change == ",".join(f"{k}={after[k]}" for k in changed)
        moved.add(len(changed))
        for k in changed:
            assert after[k] in neighbours(k, start[k])
    assert moved == {1, 2}
    code = SEED
    for _ in range(200):  # a long walk never leaves the domains of the seed's values
        code = mutate(code, rng).code
        for k, value in tunable_values(code).items():
            assert value in domain_for(k, start[k])


def test_mutation_is_deterministic_given_the_rng():
    a = [mutate(SEED, random.Random(7)).code for _ in range(3)]
    assert len(set(a)) == 1
    walk = random_walk(SEED, random.Random(3), 3)
    assert walk.code == random_walk(SEED, random.Random(3), 3).code
    assert walk.settings == settings(walk.code)


def test_no_tunables_means_no_mutation():
    assert mutate("x = 3\n", random.Random(0)) is None
    assert mutate(SEED, random.Random(0), domains={k: [v] for k, v in tunable_values(SEED).items()}) is None


TRITON = '''
BLOCK_SIZE = 1024
def launch(x):
    kernel[grid](x, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)
'''

CPP = '''
cpp_source = r"""
#define VEC_WIDTH 8
constexpr int ROW_CHUNK = 64;
const int other = 3;
"""
'''


def test_enumerated_variants_for_the_graph():
    assert [v.change for v in variants(TRITON)] == ["BLOCK_SIZE=2048", "BLOCK_SIZE=512", "num_warps=8", "num_warps=2"]
    first = variants(TRITON)[0]
    assert "BLOCK_SIZE = 2048" in first.code and "num_warps=4" in first.code
    assert settings(TRITON) == "BLOCK_SIZE=1024,num_warps=4"
    assert [v.change for v in variants(CPP)] == ["VEC_WIDTH=4", "ROW_CHUNK=128", "ROW_CHUNK=32"]
    tried = [settings(TRITON), "BLOCK_SIZE=2048,num_warps=4"]
    v = next_variant(TRITON, tried)
    assert v.change == "BLOCK_SIZE=512" and v.settings == "BLOCK_SIZE=512,num_warps=4"
    assert next_variant(TRITON, tried + [x.settings for x in variants(TRITON)]) is None
    assert next_variant("x = 3\n", []) is None
