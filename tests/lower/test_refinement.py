"""Fusion through a reshape (akg_rag/lower/refinement.py): a pointwise region that reads another
region's output through ``reshape``/``view`` joins it over the common refinement of the two
domains; what cannot join stays apart; every fused program still computes its task (emitted
sketches run by the reference interpreter, the Triton interpreter and C++)."""

from __future__ import annotations

import pytest
import torch

from akg_rag.lower.assemble import planned
from akg_rag.lower.capture import capture
from akg_rag.lower.partition import partition
from akg_rag.lower.refinement import refine
from akg_rag.lower.region import KernelStep, PoolRegion, ReductionRegion, expr_ops

from .conftest import assert_program_matches, forward_task

GROUP_NORM = """
class Model(nn.Module):
    def __init__(self, channels, groups):
        super().__init__()
        self.gn = nn.GroupNorm(groups, channels)
        with torch.no_grad():   # weights that are not all ones and zeros
            self.gn.weight.copy_(torch.linspace(0.5, 2.0, channels))
            self.gn.bias.copy_(torch.linspace(-1.0, 1.0, channels))

    def forward(self, x):
        return torch.relu(self.gn(x)) * 2.0

def get_inputs():
    return [torch.randn(SHAPE) * 3 + 1]

def get_init_inputs():
    return [CHANNELS, GROUPS]
"""


def _group_norm(write_task, shape=(3, 12, 5, 7), groups=4):
    return write_task(GROUP_NORM.replace("SHAPE", repr(tuple(shape))).replace("CHANNELS", str(shape[1]))
                      .replace("GROUPS", str(groups)))


def _kernels(prog):
    return [s for s in prog.steps if isinstance(s, KernelStep)]


def _planned(path):
    return planned(partition(capture(path)))


@pytest.mark.parametrize("a, b, want", [
    ((2, 12), (6, 4), ((2, 3, 4), [[0], [1, 2]], [[0, 1], [2]])),
    ((112, 8, 8, 262144), (112, 64, 512, 512),
     ((112, 8, 8, 512, 512), [[0], [1], [2], [3, 4]], [[0], [1, 2], [3], [4]])),
    ((4, 1, 6), (24,), ((4, 6), [[0], [], [1]], [[0, 1]])),   # a size-1 dim splits into nothing
    ((3, 5), (3, 5), ((3, 5), [[0], [1]], [[0], [1]])),
])
def test_the_common_refinement_splits_both_shapes(a, b, want):
    assert refine(a, b) == want


@pytest.mark.parametrize("a, b", [((6, 4), (8, 3)), ((2, 3), (7,)), ((0, 3), (3, 0))])
def test_shapes_that_cut_their_elements_differently_have_no_refinement(a, b):
    assert refine(a, b) is None


def test_group_norm_is_one_kernel_with_its_affine_and_tail(write_task):
    """Group norm's statistics run over [N*G, C/G*H*W]; its per-channel affine (and the ReLU and
    scale after it) used to be a second kernel reading the normalised tensor back. Now the
    reduction keeps its two merged dims and reads the weights by channel, computed from them."""
    path = _group_norm(write_task)
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert isinstance(k.region, ReductionRegion) and k.name == "k0"
    assert k.region.shape == (12, 3 * 5 * 7) and k.region.dims == (1,)
    (out,) = k.region.outputs
    assert out.domain == "full" and out.value.shape == (12, 105)
    assert "gather" in expr_ops(out.expr)
    assert sorted(v.shape for v in k.region.inputs) == [(1, 12, 1), (1, 12, 1), (12, 105)]
    assert_program_matches(path, prog)


def test_a_reshaped_pointwise_chain_becomes_one_kernel(write_task):
    """The consumer's operand of its own shape is read plainly, reshaped to the producer's domain;
    a row-wise one by a gather."""
    path = write_task(forward_task("return (torch.exp(t[0]) + 1.0).reshape(6, 4) * t[1] + t[2]",
                                   "[torch.randn(2, 12), torch.randn(6, 1), torch.randn(6, 4)]"))
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert k.region.shape == (24,)
    assert sorted(v.shape for v in k.region.inputs) == [(6, 1), (24,), (24,)]
    assert_program_matches(path, prog)


def test_positions_in_the_consumer_are_taken_from_the_producers_coordinates(write_task):
    """The consumer's own index leaves (an arange mask) and gathers (a flipped operand) are
    over its domain: merged, they are computed from the producer's coordinates."""
    path = write_task(forward_task(
        "y = (torch.exp(t[0]) + t[2]).reshape(6, 4); return y * (torch.arange(4) < 2) + t[1].flip(0)",
        "[torch.randn(2, 12), torch.randn(6, 4), torch.randn(2, 1)]"))
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert {"index", "gather"} <= expr_ops(k.region.outputs[0].expr)
    assert_program_matches(path, prog)


def test_positions_in_a_prologue_are_taken_from_the_reductions_coordinates(write_task):
    """A flipped input before the norm: the producer gathers it at positions over its own
    domain; as the norm's prologue the gather's indices come from the norm's coordinates."""
    path = write_task(forward_task("y = torch.sigmoid(t[0].flip(3) * 2.0); return F.group_norm(y, 2)",
                                   "[torch.randn(2, 6, 5, 7)]"))
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert isinstance(k.region, ReductionRegion) and "gather" in expr_ops(k.region.reductions[0].expr)
    assert_program_matches(path, prog)


def test_a_reduction_output_read_elsewhere_keeps_its_kernel(write_task):
    """The normalised tensor is returned too: it must be stored, and the affine stays apart."""
    path = write_task(forward_task(
        "y = F.group_norm(t[0], 2); return y, y.reshape(2, 4, 6) * t[1]",
        "[torch.randn(2, 4, 6), torch.randn(4, 1)]"))
    prog = _planned(path)
    assert len(_kernels(prog)) == 2
    assert_program_matches(path, prog)


def test_an_operand_computed_after_the_producer_moves_the_merged_kernel_down(write_task):
    """The consumer's other operand is a reduction of another tensor that runs after the
    producer: the merged kernel runs where the consumer did."""
    path = write_task(forward_task(
        "y = torch.exp(t[0]).reshape(6, 4); return y * t[1].sum(dim=1, keepdim=True)",
        "[torch.randn(2, 12), torch.randn(6, 5)]"))
    prog = _planned(path)
    assert [(k.name, k.region.kind, k.region.shape) for k in _kernels(prog)] == \
        [("k1", "reduction", (6, 5)), ("k0", "pointwise", (24,))]
    assert_program_matches(path, prog)


def test_a_producer_whose_other_output_is_read_first_stays_put(write_task):
    """The producer also writes exp(mean) for a reduction whose result the consumer reads: the
    merged kernel could run neither before that reduction nor after it."""
    path = write_task(forward_task(
        "m = t[0].mean(dim=1, keepdim=True); y = t[0] - m; z = torch.exp(m).sum(); "
        "return y.reshape(6, 4) * z",
        "[torch.randn(2, 12)]"))
    prog = _planned(path)
    assert [k.region.shape for k in _kernels(prog)] == [(2, 12), (2,), (24,)]
    assert_program_matches(path, prog)


def test_a_strided_operand_is_gathered_not_reshaped(write_task):
    """t[1] is a transposed view: reshaping it to the producer's domain would copy it, so it is
    read through a gather at its own strides."""
    path = write_task(forward_task(
        "return torch.exp(t[0]).reshape(6, 4) + t[1].t()",
        "[torch.randn(2, 12), torch.randn(4, 6)]"))
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert "gather" in expr_ops(k.region.outputs[0].expr)
    assert_program_matches(path, prog)


def test_domains_that_cut_the_elements_differently_stay_apart(write_task):
    """[6, 4] and [8, 3] (each kept that way by a row-wise operand) share no refinement."""
    path = write_task(forward_task("return (torch.exp(t[0]) + t[2]).reshape(8, 3) * t[1]",
                                   "[torch.randn(6, 4), torch.randn(8, 1), torch.randn(6, 1)]"))
    prog = _planned(path)
    assert [k.region.shape for k in _kernels(prog)] == [(6, 4), (8, 3)]
    assert_program_matches(path, prog)


def test_a_pointwise_producer_becomes_the_reduction_prologue(write_task):
    """A bias and an activation before a group norm (a convolution's tail in library form) were a
    kernel writing the whole tensor for the norm to read back: now the norm evaluates them in each
    of its passes, the bias read by channel from the norm's coordinates."""
    path = write_task(forward_task(
        "y = torch.sigmoid(t[0] + t[1].view(1, -1, 1, 1)); return F.group_norm(y, 2) * 3.0",
        "[torch.randn(2, 6, 5, 7), torch.randn(6)]"))
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert isinstance(k.region, ReductionRegion) and k.region.shape == (4, 105)
    assert all("gather" in expr_ops(r.expr) for r in k.region.reductions)
    assert_program_matches(path, prog)


def test_a_producer_read_twice_is_not_recomputed_by_a_reduction(write_task):
    """The pointwise result is also returned: it is stored once, and the norm reads it."""
    path = write_task(forward_task(
        "y = torch.sigmoid(t[0] + 1.0); return y, F.group_norm(y, 2)",
        "[torch.randn(2, 6, 5, 7)]"))
    prog = _planned(path)
    assert len(_kernels(prog)) == 2
    assert_program_matches(path, prog)


def test_a_reduction_full_output_becomes_the_next_reductions_prologue(write_task):
    """A group norm then a mean over each sample (KernelBench-style norm-then-reduce tails): the
    norm's normalised tensor was written whole for the mean to read back; now the norm writes
    only its statistics and the mean evaluates the normalised value from them, gathered at the
    norm's kept coordinates. Two kernels stay, and the full tensor is stored by neither."""
    path = write_task(forward_task(
        "y = F.group_norm(torch.tanh(t[0]), 3, t[1], t[2]); return y.mean(dim=[1, 2, 3])",
        "[torch.randn(2, 6, 5, 7) * 2 + 1, torch.rand(6) + 0.5, torch.randn(6)]"))
    prog = _planned(path)
    ks = _kernels(prog)
    assert len(ks) == 2 and all(isinstance(k.region, ReductionRegion) for k in ks)
    first, second = ks
    assert all(o.domain == "reduced" for o in first.region.outputs)   # statistics only
    assert any("gather" in expr_ops(r.expr) for r in second.region.reductions)
    assert_program_matches(path, prog)


def test_a_reduction_output_also_returned_is_not_recomputed(write_task):
    """The normalised tensor is returned too: it stays a stored output, the mean reads it."""
    path = write_task(forward_task(
        "y = F.group_norm(t[0], 2); return y, y.sum(dim=1)",
        "[torch.randn(2, 4, 3, 5)]"))
    prog = _planned(path)
    assert any(o.domain == "full" for k in _kernels(prog) if isinstance(k.region, ReductionRegion)
               for o in k.region.outputs)
    assert_program_matches(path, prog)


@pytest.mark.parametrize("dsl", ["triton", pytest.param("cpp", marks=pytest.mark.slow)])
def test_a_reduction_prologue_is_correct_through_the_backends(write_task, dsl):
    from akg_rag.lower.assemble import lower_task
    from akg_rag.verify import verify

    path = write_task(forward_task(
        "y = F.group_norm(t[0] * 2.0, 3) * t[1].view(1, -1, 1, 1); return torch.logsumexp(y, dim=1)",
        "[torch.randn(2, 6, 9, 11) + 0.5, torch.rand(6) + 0.5]"))
    src, report = lower_task(path, dsl, "cuda" if dsl == "triton" else "cpu")
    assert [k.kind for k in report.kernels] == ["reduction", "reduction"] and not report.partial
    res = verify(path, candidate_source=src, dsl=dsl, backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback


@pytest.mark.parametrize("forward", [
    # values <= 0 with padding: a padded tap must read -inf, not the 0 a masked load would give
    "return F.max_pool2d(-torch.relu(t[0] + t[1].view(1, -1, 1, 1)), 3, stride=2, padding=1)",
    "return F.avg_pool2d(torch.sigmoid(t[0]) * 2.0, 3, stride=2, padding=1, count_include_pad=False)",
    "return torch.tanh(F.max_pool2d(t[0].flip(3) + 1.0, 2, ceil_mode=True)) * t[1].view(1, -1, 1, 1)",
])
def test_a_pointwise_producer_is_computed_in_the_pooling_windows(write_task, forward):
    """A convolution's bias and activation before a pooling were a kernel writing the whole
    tensor for the pooling to read back: the pooling computes them at each tap now."""
    path = write_task(forward_task(forward, "[torch.randn(2, 3, 9, 11), torch.randn(3)]"))
    prog = _planned(path)
    (k,) = _kernels(prog)
    assert isinstance(k.region, PoolRegion) and k.region.prologue is not None
    assert_program_matches(path, prog)


def test_a_pooled_tensor_read_elsewhere_stays_stored(write_task):
    path = write_task(forward_task("y = torch.relu(t[0]) + 1.0; return F.max_pool2d(y, 2), y",
                                   "[torch.randn(2, 3, 8, 8)]"))
    prog = _planned(path)
    assert [k.region.kind for k in _kernels(prog)] == ["pointwise", "pool"]
    assert_program_matches(path, prog)


def _reduction_form(monkeypatch, form: str) -> None:
    """The reduction emitter's split form (few rows over a long extent: chunks, a combine, then
    the full-domain pass) at test sizes, or its default (loop) form."""
    from akg_rag.lower.emit import reduction

    if form == "split":
        monkeypatch.setattr(reduction, "SPLIT_MIN_REDUCED", 64)
        monkeypatch.setattr(reduction, "SPLIT_CHUNK_MIN", 16)


def _verified(path, dsl: str) -> str:
    """Lower the task to one fused reduction kernel and let the verifier judge it (Triton runs
    under its interpreter here, C++ through load_inline)."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.verify import verify

    src, report = lower_task(path, dsl, "cuda" if dsl == "triton" else "cpu")
    assert [k.kind for k in report.kernels] == ["reduction"] and not report.partial
    res = verify(path, candidate_source=src, dsl=dsl, backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback
    return src


@pytest.mark.parametrize("form", ["loop", "split"])
def test_fused_group_norm_is_correct_through_the_triton_interpreter(write_task, monkeypatch, form):
    _reduction_form(monkeypatch, form)
    src = _verified(_group_norm(write_task, (2, 6, 9, 11), groups=3), "triton")
    assert ("SPLIT" in src) == (form == "split")


@pytest.mark.slow
def test_fused_group_norm_is_correct_through_cpp(write_task):
    _verified(_group_norm(write_task, (2, 6, 9, 11), groups=3), "cpp")


@pytest.mark.parametrize("form", ["loop", "split"])
def test_a_fused_prologue_is_correct_through_the_triton_interpreter(write_task, monkeypatch, form):
    _reduction_form(monkeypatch, form)
    path = write_task(forward_task(
        "y = F.gelu(t[0] * t[1].view(1, -1, 1, 1)); return F.group_norm(y, 3) + t[0]",
        "[torch.randn(2, 6, 9, 11) * 2 + 1, torch.rand(6) + 0.5]"))
    _verified(path, "triton")


@pytest.mark.parametrize("pool", [
    "F.max_pool2d({x}, 3, stride=2, padding=1)",
    # windows overlapping along H: the rolled form (a ring of combined rows in registers)
    "F.max_pool2d({x}, 4, stride=1, padding=1)",
    "F.avg_pool2d({x}, 3, stride=1, padding=1, count_include_pad=False)",
])
@pytest.mark.parametrize("dsl", ["triton", pytest.param("cpp", marks=pytest.mark.slow)])
def test_a_pooling_prologue_is_correct_through_the_backends(write_task, dsl, pool):
    from akg_rag.lower.assemble import lower_task
    from akg_rag.verify import verify

    x = "(-torch.relu(t[0] + t[1].view(1, -1, 1, 1)))"
    path = write_task(forward_task(f"return {pool.format(x=x)} + 0.5", "[torch.randn(2, 3, 9, 11), torch.randn(3)]"))
    src, report = lower_task(path, dsl, "cuda" if dsl == "triton" else "cpu")
    assert [k.kind for k in report.kernels] == ["pool"]
    assert ("RD" in src) == ("stride=1" in pool)
    res = verify(path, candidate_source=src, dsl=dsl, backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback
