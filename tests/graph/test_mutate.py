"""Tunable discovery and single-change variants in Python/Triton and C++ sources."""

from __future__ import annotations

from akg_rag.graph.mutate import find_tunables, next_variant, settings, variants

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


def test_finds_python_kwarg_and_cpp_tunables():
    assert [(t.name, t.value) for t in find_tunables(TRITON)] == [("BLOCK_SIZE", 1024), ("num_warps", 4)]
    assert [(t.name, t.value) for t in find_tunables(CPP)] == [("VEC_WIDTH", 8), ("ROW_CHUNK", 64)]


def test_variants_change_one_value_within_range():
    changes = [v.change for v in variants(TRITON)]
    assert changes == ["BLOCK_SIZE=2048", "BLOCK_SIZE=512", "num_warps=8", "num_warps=2"]
    first = variants(TRITON)[0]
    assert "BLOCK_SIZE = 2048" in first.code and "num_warps=4" in first.code
    assert [v.change for v in variants("num_warps=16,)")] == ["num_warps=8"]  # 32 is out of range


def test_next_variant_skips_tried_settings():
    tried = [settings(TRITON), "BLOCK_SIZE=2048,num_warps=4"]
    v = next_variant(TRITON, tried)
    assert v.change == "BLOCK_SIZE=512" and v.settings == "BLOCK_SIZE=512,num_warps=4"
    all_tried = tried + [x.settings for x in variants(TRITON)]
    assert next_variant(TRITON, all_tried) is None
    assert next_variant("x = 3\n", []) is None
