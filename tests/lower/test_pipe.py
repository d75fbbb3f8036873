"""The pipelined form of a cooperative launch (``PIPE``, akg_rag.lower.triton_pipe): programs loop
over tickets, arriving for their next grid point before they wait on the one they hold.

Under the interpreter programs run one after another, so the first program runs every grid point
and the others find the tickets spent; with the barrier count lowered to 1 a row never waits, and
with it raised to 2 (the host's `_resident` patched) one program completes each row itself by
arriving for its second chunk before it waits on its first, which is the order the form rests
on (waiting first would hang). On a GPU the rows' programs really wait for each other."""

from __future__ import annotations

import ast
import re

import pytest
import torch

from tests.lower.conftest import INTERPRETED
from tests.lower.test_barrier import L1, _l1, check_coop, coop_region


def _pipe_block(code: str) -> str:
    return code[code.index("if PIPE:"):code.index("else:", code.index("if PIPE:"))]


def test_a_barrier_launch_is_written_both_ways_and_off_by_default(build):
    _, module, src = build(L1, "k0")
    code = src.code
    assert src.tunables["K0_PIPE"] == 0 and "PIPE: tl.constexpr" in code
    assert "launched = min(programs, resident * K0_PIPE) if K0_PIPE > 0 else programs" in code
    assert "PIPE=int(K0_PIPE > 0)" in code
    ast.parse(code)
    piped = _pipe_block(code)
    # the next grid point's arrival comes before the wait on the held one, inside the loop
    loop = piped[piped.index("while "):]
    assert loop.index("sem='release'") < loop.index("volatile=True") < loop.index("sem='acquire'")
    # its loaded chunk is carried to the next iteration; its index arithmetic is redone
    assert re.search(r"\n +v = v_next\n", loop)
    assert "row_cur = " in loop and "\n            row = " not in loop
    # a ticket past the grid loads the last point again but stores nothing
    ahead = loop[:loop.index("volatile=True")].splitlines()
    stores = [k for k, line in enumerate(ahead) if "tl.store(" in line]
    assert stores and all(ahead[k - 1].strip().startswith("if tk_next < ") for k in stores)


@pytest.mark.parametrize("pipe", [0, 1, 3, 8])
def test_the_hand_written_cooperative_sketch_gives_its_result_at_every_pipe(build, device, pipe):
    fn, module, _ = build(L1, "k0")
    x = torch.randn(5, 1000, device=device)
    module.K0_PIPE = pipe
    for programs in (1, 4):
        module.K0_C = programs
        y = torch.full_like(x, float("nan"))
        fn(x, y)
        torch.testing.assert_close(y, _l1(x))


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's one-program-at-a-time order is the point")
@pytest.mark.parametrize("stat", ["softmax_l1", "layer_norm"])
def test_one_program_completes_rows_of_two_chunks_by_arriving_before_it_waits(build, device, stat):
    from akg_rag.lower.emit import emit_sketch

    fn, module, src = build(emit_sketch(coop_region(stat), "k0", barriers=True), "k0")
    assert "if PIPE:" in src.code
    module._resident = lambda t: 2    # two chunks a row, both held by the one running program
    module.K0_COOP = 2
    module.K0_PIPE = 1                # launched: min(grid, 2 x 1) programs, run one after another
    x = torch.randn(6, 10000, device=device) * 2 + 1
    check_coop(fn, stat, x)
    module.K0_PIPE = 4
    check_coop(fn, stat, x)


def test_a_pipe_outside_zero_to_eight_is_refused(build, device):
    fn, module, _ = build(L1, "k0")
    x = torch.randn(2, 100, device=device)
    for bad in (-1, 9, 1.5):
        module.K0_PIPE = bad
        with pytest.raises(ValueError, match="K0_PIPE must be 0"):
            fn(x, torch.empty_like(x))


def test_launches_without_one_barrier_have_no_pipelined_form(build):
    from tests.lower.test_triton import GEMM_F32

    two = L1.replace("    load(part[row, unsqueeze(iota(C), axis=0)] -> ps)\n",
                     "    barrier(cnt[row], C)\n    load(part[row, unsqueeze(iota(C), axis=0)] -> ps)\n")
    assert two.count("barrier(") == 2
    for text in (two, GEMM_F32):
        _, _, src = build(text, "k0")
        assert "PIPE" not in src.code and "K0_PIPE" not in src.tunables


def test_the_tuner_offers_programs_per_multiprocessor():
    from akg_rag.lower.tune_space import _values

    values, why = _values("PIPE", 0, None, {}, "triton", {})
    assert tuple(values) == (0, 2, 3, 4) and "wait" in why


@pytest.mark.skipif(INTERPRETED, reason="needs a CUDA GPU: the interpreter runs programs one at a time")
def test_on_a_gpu_pipelined_rows_wait_for_each_other(build):
    """Many rows of many programs at 1-4 programs an SM; repeated calls reuse nothing of the last."""
    fn, module, _ = build(L1, "k0")
    x = torch.randn(4096, 65535, device="cuda")
    for pipe in (1, 2, 4):
        module.K0_PIPE = pipe
        for programs in (2, 16, 48, 1000):
            module.K0_C = programs
            for _ in range(2):
                y = torch.full_like(x, float("nan"))
                fn(x, y)
                torch.testing.assert_close(y, _l1(x), atol=1e-6, rtol=1e-4)


def test_the_emitter_asks_for_the_pipelined_form_where_a_chunk_is_short():
    """Rows cut into chunks of at most 4096 elements get their grid loop hinted ``pipeline`` and
    ship with PIPE 3 (on an H100: L1/L2 norms of 65535-element rows on 4096-element chunks 1.08-1.10x);
    rows on 8192-element chunks are left as written (softmax, instance norm: no gain)."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.region import Expr, Output, Reduction, ReductionRegion, Value
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    def l1(n: int) -> ReductionRegion:
        shape = (4096, n)
        return ReductionRegion([Value("x", shape, "float32")], shape, (1,),
                               [Reduction("a", "sum", Expr.call("abs", Expr.input("x")))],
                               [Output(Value("y", shape, "float32"),
                                       Expr.call("div", Expr.input("x"), Expr("reduced", ref="a")))])

    short, long = (emit_sketch(l1(n), "k0", barriers=True) for n in (65535, 393216))
    assert "barrier(" in short and "barrier(" in long
    assert '@llm_hint("pipeline", "grid")' in short and '@llm_hint("pipeline", "grid")' not in long
    assert emit_triton(check_sketch(short), "k0").tunables["K0_PIPE"] == 3
    assert emit_triton(check_sketch(long), "k0").tunables["K0_PIPE"] == 0
