"""Index-style ops (arange, cat, pad, flip, roll, repeat, gather, index_select, index, embedding)
lower to ``index``/``gather`` leaves fused with their neighbours: no torch fallback, and every
partition computes the task (emitted sketches run by the reference interpreter)."""

from __future__ import annotations

import pytest

from akg_rag.lower.capture import capture
from akg_rag.lower.listing import format_program
from akg_rag.lower.partition import partition
from akg_rag.lower.region import FallbackStep, KernelStep, expr_ops

from .conftest import assert_program_matches


def _task(forward: str, inputs: str, init: str = "", init_args: str = "[]") -> str:
    return (f"class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            f"        {init or 'pass'}\n    def forward(self, *xs):\n        {forward}\n\n"
            f"def get_inputs():\n    return {inputs}\n\ndef get_init_inputs():\n    return {init_args}\n")


def _lower(write_task, source: str):
    path = write_task(source)
    return path, partition(capture(path))


def _kernels(prog):
    return [s.region for s in prog.steps if isinstance(s, KernelStep)]


def _backends_accept(prog) -> None:
    """Both backends turn every emitted sketch into source (nothing is compiled here)."""
    from akg_rag.lower.cpp import emit_cpp
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.lower.triton import emit_triton
    from akg_rag.sketch import check_sketch

    for s in prog.steps:
        if isinstance(s, KernelStep):
            sketch = check_sketch(emit_sketch(s.region, s.name))
            emit_triton(sketch, s.name)
            emit_cpp(sketch, s.name)


def _ops(region) -> set[str]:
    out: set[str] = set()
    for o in region.outputs:
        out |= expr_ops(o.expr)
    for red in getattr(region, "reductions", []):
        out |= expr_ops(red.expr)
    if getattr(region, "expr", None) is not None:
        out |= expr_ops(region.expr)
    return out


# (name, forward, inputs, kernel kinds, a leaf the first kernel must use)
CASES = [
    ("triu_matmul", "return torch.triu(torch.matmul(xs[0], xs[1]))",
     "[torch.randn(12, 9), torch.randn(9, 10)]", ["gemm"], "index"),
    ("tril_bmm_offset", "return torch.tril(torch.bmm(xs[0], xs[1]), diagonal=-1)",
     "[torch.randn(2, 7, 5), torch.randn(2, 5, 7)]", ["gemm"], "index"),
    ("exclusive_cumsum", "a = xs[0]\n        z = torch.zeros_like(a.select(1, 0).unsqueeze(1))\n"
     "        return torch.cumsum(torch.cat((z, a), dim=1)[:, :-1], dim=1)",
     "[torch.randn(3, 9)]", ["scan"], "gather"),
    ("exclusive_cumsum_long_rows", "a = xs[0]\n        z = torch.zeros_like(a.select(1, 0).unsqueeze(1))\n"
     "        return torch.cumsum(torch.cat((z, a), dim=1)[:, :-1], dim=1)",
     "[torch.randn(2, 5000)]", ["scan"], "gather"),
    ("pad_value", "return F.pad(xs[0], (1, 2, 0, 1), value=0.5) * 2",
     "[torch.randn(4, 6)]", ["pointwise"], "gather"),
    ("pad_crop_and_rows_form", "return F.pad(torch.relu(xs[0]), (-2, 3, 1, 1))",
     "[torch.randn(3, 300)]", ["pointwise"], "gather"),
    ("flip_two_dims", "return torch.relu(torch.flip(xs[0], [0, 2]))",
     "[torch.randn(3, 4, 5)]", ["pointwise"], "gather"),
    ("roll_two_dims", "return torch.roll(xs[0], (1, -2), (0, 1)) + 1",
     "[torch.randn(4, 6)]", ["pointwise"], "gather"),
    ("repeat", "return xs[0].repeat(2, 1, 3)", "[torch.randn(3, 4)]", ["pointwise"], "gather"),
    ("stack_of_expressions", "return torch.stack([xs[0], xs[0] * 2, -xs[0]], dim=1)",
     "[torch.randn(4, 5)]", ["pointwise"], "gather"),
    ("cat_three_dim0", "return torch.cat([xs[0], torch.sigmoid(xs[1]), xs[0][:1]], dim=0)",
     "[torch.randn(3, 4), torch.randn(2, 4)]", ["pointwise"], "gather"),
    ("gather_dim1", "return torch.gather(xs[0], 1, xs[1]).exp()",
     "[torch.randn(4, 8), torch.randint(0, 8, (4, 3))]", ["pointwise"], "gather"),
    ("index_select_dim0", "return torch.index_select(xs[0], 0, xs[1]) * 3",
     "[torch.randn(6, 5), torch.randint(0, 6, (4,))]", ["pointwise"], "gather"),
    ("index_select_dim1", "return torch.index_select(xs[0], 1, xs[1])",
     "[torch.randn(3, 6, 2), torch.randint(0, 6, (4,))]", ["pointwise"], "gather"),
    ("index_negative", "return xs[0][xs[1]]",
     "[torch.randn(7, 3), torch.tensor([0, -1, 3, -7, 6])]", ["pointwise"], "gather"),
    ("index_middle_dim", "return xs[0][:, xs[1]]",
     "[torch.randn(2, 7, 3), torch.randint(0, 7, (2, 4))]", ["pointwise"], "gather"),
    ("index_split_dims", "return xs[0][xs[1], :, xs[2]]",
     "[torch.randn(5, 3, 6), torch.randint(0, 5, (4,)), torch.randint(0, 6, (4,))]", ["pointwise"], "gather"),
    ("one_hot", "return F.one_hot(xs[0], 6).float() * 2",
     "[torch.randint(0, 6, (5,))]", ["pointwise"], "index"),
    ("arange_float", "return xs[0] * torch.arange(0.5, 4.5, 1.0)",
     "[torch.randn(3, 4)]", ["pointwise"], "index"),
]


@pytest.mark.parametrize("name,forward,inputs,kinds,leaf", CASES, ids=[c[0] for c in CASES])
def test_index_ops_lower_without_fallback(write_task, name, forward, inputs, kinds, leaf):
    path, prog = _lower(write_task, _task(forward, inputs))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)], format_program(prog)
    assert [r.kind for r in _kernels(prog)] == kinds, format_program(prog)
    assert leaf in _ops(_kernels(prog)[0]), format_program(prog)
    assert_program_matches(path, prog)
    _backends_accept(prog)


@pytest.mark.parametrize("mode,forward,inputs", [
    ("bilinear", "return F.interpolate(xs[0], scale_factor=2, mode='bilinear') + 1", "[torch.randn(2, 3, 4, 5)]"),
    ("bilinear_corners_size", "return F.interpolate(xs[0], size=(7, 3), mode='bilinear', align_corners=True)",
     "[torch.randn(2, 3, 4, 5)]"),
    ("bicubic", "return F.interpolate(xs[0], scale_factor=2, mode='bicubic')", "[torch.randn(1, 2, 4, 5)]"),
    ("trilinear", "return torch.relu(F.interpolate(xs[0], scale_factor=2, mode='trilinear'))",
     "[torch.randn(1, 2, 3, 4, 5)]"),
])
def test_interpolation_gathers_its_neighbours_and_stores_only_the_result(write_task, mode, forward, inputs):
    """torch's decompositions of the interpolations: small kernels for the per-axis weights, then
    one kernel gathering the neighbours of every output element. The blend's shared partial sums
    are large expressions, which the partitioner stores for other regions to read; all their
    readers are in the gathering region, so none of them is written (dead stores dropped)."""
    path, prog = _lower(write_task, _task(forward, inputs))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)], format_program(prog)
    last = _kernels(prog)[-1]
    assert "gather" in _ops(last), format_program(prog)
    assert [o.value.name for o in last.outputs] == [v.name for v in prog.outputs], format_program(prog)
    assert_program_matches(path, prog)
    _backends_accept(prog)


@pytest.mark.parametrize("forward,inputs,init", [
    # circular padding's decomposition copies into slices of an empty tensor: functionalised by
    # a second trace (before, rewritten out of place, the copies were lost and the output wrong)
    ("return F.pad(xs[0], (1, 2, 1, 1), mode='circular') * 2", "[torch.randn(2, 3, 7, 6)]", ""),
    ("return self.c(xs[0])", "[torch.randn(2, 3, 7, 6)]",
     "self.c = nn.Conv2d(3, 4, 3, padding=1, padding_mode='circular')"),
    # writes into slices of a clone, by the task itself: slice_scatter / select_scatter
    ("out = xs[0].clone()\n        out[:, 1:7:2] = xs[1] * 2\n        out[:, 0] = out[:, -1] + 1\n"
     "        out[2] = 0.5\n        return out.relu()", "[torch.randn(5, 9), torch.randn(5, 3)]", ""),
    ("out = torch.zeros(4, 8)\n        out[:, 1:-1] = torch.sigmoid(xs[0])\n        out[..., -1] += xs[0].sum(-1)\n"
     "        return out", "[torch.randn(4, 6)]", ""),
], ids=["pad_circular", "conv_circular", "slice_writes", "zeros_then_writes"])
def test_writes_into_slices_lower_as_scatters(write_task, forward, inputs, init):
    path, prog = _lower(write_task, _task(forward, inputs, init))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)], format_program(prog)
    assert_program_matches(path, prog)
    _backends_accept(prog)


def test_a_stack_of_hundreds_of_tensors_selects_in_a_balanced_tree(write_task):
    """An unrolled recurrence stacks one output per step: the pieces are picked by a balanced tree
    of selects (nested about log2(pieces) deep), so the sketch parses and both backends accept it
    (a chain of 300 nested selects exceeded the parser's recursion)."""
    from akg_rag.lower.emit import emit_sketch
    from akg_rag.sketch import check_sketch

    path, prog = _lower(write_task, _task("return torch.stack([xs[0] * (i + 1) for i in range(300)], dim=0)",
                                          "[torch.randn(3, 4)]"))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)], format_program(prog)
    (step,) = [s for s in prog.steps if isinstance(s, KernelStep)]
    text = emit_sketch(step.region, step.name)
    depth = deepest = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        deepest = max(deepest, depth)
    assert deepest < 40, deepest
    check_sketch(text)
    assert_program_matches(path, prog)
    _backends_accept(prog)


def test_embedding_module_gathers_its_weight(write_task):
    path, prog = _lower(write_task, _task("return torch.tanh(self.emb(xs[0]))",
                                          "[torch.randint(0, 10, (3, 4))]",
                                          init="self.emb = nn.Embedding(10, 6)"))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)]
    (r,) = _kernels(prog)
    assert r.kind == "pointwise" and prog.params["emb.weight"] in r.inputs
    assert_program_matches(path, prog)


def test_reduction_over_a_gathered_dim_pins_its_size(write_task):
    # no tensor of the region spans the embedding dim: its size is a literal, not a symbol the
    # host could never bind
    path, prog = _lower(write_task, _task("return self.emb(xs[0]).sum(-1)", "[torch.randint(0, 10, (3, 4))]",
                                          init="self.emb = nn.Embedding(10, 6)"))
    (r,) = _kernels(prog)
    assert r.kind == "reduction" and "gather" in _ops(r)
    assert_program_matches(path, prog)
    _backends_accept(prog)


def test_cross_entropy_gathers_inside_the_loss_reduction(write_task):
    path, prog = _lower(write_task, _task("return F.cross_entropy(xs[0], xs[1])",
                                          "[torch.randn(6, 10), torch.randint(0, 10, (6,))]"))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)], format_program(prog)
    kinds = [r.kind for r in _kernels(prog)]
    assert kinds.count("reduction") == 2, format_program(prog)
    # the target pick reads the stored log-softmax inside the mean's region
    assert "gather" in _ops(_kernels(prog)[-1]) and _kernels(prog)[-1].dims == (0,)
    assert_program_matches(path, prog)
    _backends_accept(prog)


def test_gather_of_a_reduction_output_closes_that_region_first(write_task):
    path, prog = _lower(write_task, _task("return torch.flip(torch.softmax(xs[0], dim=1), [1]) + xs[0]",
                                          "[torch.randn(4, 6)]"))
    kinds = [r.kind for r in _kernels(prog)]
    assert kinds == ["reduction", "pointwise"], format_program(prog)
    assert "gather" in _ops(_kernels(prog)[1])
    assert_program_matches(path, prog)


def test_gather_in_a_looped_reduction_prologue(write_task):
    # 9000 reduced elements: the loop form, the gather recomputed in each pass
    path, prog = _lower(write_task, _task("return torch.softmax(torch.flip(xs[0], [1]), dim=1)",
                                          "[torch.randn(2, 9000)]"))
    (r,) = _kernels(prog)
    assert r.kind == "reduction" and "gather" in _ops(r)
    assert_program_matches(path, prog)


def test_arange_unsqueezed_stays_symbolic(write_task):
    # arange(n)[:, None] - arange(n)[None, :]: index leaves along both dims, no stored arange
    path, prog = _lower(write_task, _task(
        "n = xs[0].shape[0]\n        i = torch.arange(n)\n"
        "        return torch.where(i[:, None] >= i[None, :], xs[0], -xs[0])", "[torch.randn(5, 5)]"))
    assert not [s for s in prog.steps if isinstance(s, FallbackStep)]
    (r,) = _kernels(prog)
    assert r.inputs == [prog.inputs[0]] and "index" in _ops(r)
    assert_program_matches(path, prog)


# -- both backends, through the candidate a task lowers to -------------------------------------------

_MIXED = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 6)

    def forward(self, a, b, x, t, ids):
        upper = torch.triu(torch.matmul(a, b))
        excl = torch.cumsum(torch.cat((torch.zeros_like(x[:, :1]), x), dim=1)[:, :-1], dim=1)
        loss = F.cross_entropy(x, t)
        padded = F.pad(torch.flip(x, [1]), (2, 1), value=-1.0)
        rolled = torch.roll(x, 2, 1)[:, :5] + torch.index_select(x, 1, t)
        return upper, excl, loss, padded, rolled, self.emb(ids).sum(-1)


def get_inputs():
    return [torch.randn(9, 7), torch.randn(7, 9), torch.randn(5, 8), torch.randint(0, 8, (5,)),
            torch.randint(0, 11, (3, 4))]


def get_init_inputs():
    return []
'''

_DRIVER = """
import sys, torch
sys.path.insert(0, sys.argv[1])
import task, candidate
torch.manual_seed(0)
ref = task.Model(*task.get_init_inputs())
torch.manual_seed(0)
new = candidate.ModelNew(*task.get_init_inputs())
inputs = task.get_inputs()
with torch.no_grad():
    torch.testing.assert_close(new(*inputs), ref(*inputs), atol=1e-4, rtol=1e-4)
print("MATCH")
"""


@pytest.mark.slow
@pytest.mark.parametrize("dsl,backend", [("cpp", "cpu"), ("triton", "cuda")])
def test_index_ops_candidate_has_no_fallback_and_runs(tmp_path, dsl, backend):
    import os
    import subprocess
    import sys

    from akg_rag.lower.assemble import lower_task

    path = tmp_path / "task.py"
    path.write_text(_MIXED)
    source, report = lower_task(path, dsl, backend)
    assert not report.partial and report.fallbacks == []
    (tmp_path / "candidate.py").write_text(source)
    (tmp_path / "driver.py").write_text(_DRIVER)
    # TRITON_INTERPRET is read when triton is imported: the candidate runs in a fresh process
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    run = subprocess.run([sys.executable, str(tmp_path / "driver.py"), str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert "MATCH" in run.stdout, run.stderr[-3000:]
