"""derive_sketch: every family of analysis gives a valid sketch with the expected structure."""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.analysis import analyze_task
from akg_rag.sketch import derive_sketch, print_sketch, validate_sketch
from akg_rag.sketch.nodes import Alloc, For, Sketch

TASKS = Path(__file__).parents[1] / "analysis" / "tasks"


def _walk(body):
    for s in body:
        yield s
        if isinstance(s, For):
            yield from _walk(s.body)


def hints(sk: Sketch) -> set[tuple[str, str]]:
    return {(h.kind, h.context) for s in _walk(sk.body) if isinstance(s, For) for h in s.hints}


def roles(sk: Sketch) -> set[str]:
    return {s.role for s in _walk(sk.body) if isinstance(s, Alloc) and s.role}


@pytest.fixture(scope="module")
def derived() -> dict[str, Sketch]:
    return {p.stem: derive_sketch(analyze_task(p)) for p in sorted(TASKS.glob("*.py"))}


def test_every_zoo_task_gives_a_valid_sketch(derived):
    assert len(derived) >= 12
    for sk in derived.values():
        validate_sketch(sk)


def test_elementwise_is_one_launch_over_blocks(derived):
    sk = derived["gelu_tanh_manual"]
    assert ("parallel", "grid") in hints(sk)
    text = print_sketch(sk)
    assert "tanh(" in text and "iota(BLOCK)" in text and "0.044715" in text


def test_rowwise_families_cache_the_row_and_accumulate(derived):
    for stem in ("softmax", "layer_norm", "rms_norm_manual", "sum_reduce", "cumsum", "mse_loss"):
        sk = derived[stem]
        assert ("parallel", "core") in hints(sk), stem
        assert "input_cache" in roles(sk), stem
    assert "accumulator" in roles(derived["softmax"])
    assert "rsqrt(" in print_sketch(derived["rms_norm_manual"])
    assert "scan_sum(" in print_sketch(derived["cumsum"])


def test_matmul_is_tiled_with_a_pipelined_k_loop(derived):
    sk = derived["gemm_bias_relu"]
    text = print_sketch(sk)
    assert ("pipeline", "core") in hints(sk)
    assert {"accumulator", "input_cache", "weight_cache"} <= roles(sk)
    assert "matmul(ta, tb)" in text
    assert "max(biased, 0)" in text  # relu epilogue on the biased tile, before the store


def test_conv_uses_the_implicit_gemm_shape(derived):
    sk = derived["conv2d_add_relu"]
    assert [s.name for s in sk.symbols][:3] == ["P", "R", "CO"]
    assert "matmul(ta, tb)" in print_sketch(sk)


def test_other_families(derived):
    assert "reduce_max(w, axis=1)" in print_sketch(derived["max_pool2d"])
    attn = print_sketch(derived["attention"])
    assert "transpose(tk)" in attn and "f16" in attn
    assert "load(table1[ix, 0:D] -> row)" in print_sketch(derived["embedding"])
    assert "lstm_cell" in print_sketch(derived["lstm"])


def test_fused_chains_pass_through_temporaries(derived):
    sk = derived["conv_transpose3d_chain"]  # conv -> tanh, mul, add -> sum over 3 dims
    directions = {t.name: t.direction for t in sk.tensors}
    assert directions["t1"] == "temp" and directions["y"] == "out"
    assert "reduce_sum(" in print_sketch(sk)


def test_derivation_is_deterministic():
    path = TASKS / "norms_bn_gn.py"
    assert print_sketch(derive_sketch(analyze_task(path))) == print_sketch(derive_sketch(analyze_task(path)))
