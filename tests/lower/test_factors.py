"""Scalar factors of product operands moved onto the product (akg_rag/lower/factors.py): the
scaling kernels disappear, the product's epilogue multiplies, and the program still computes the
task (emitted sketches run by the reference interpreter against the task's forward)."""

from __future__ import annotations

import torch

from akg_rag.lower.assemble import planned
from akg_rag.lower.capture import capture
from akg_rag.lower.partition import partition
from akg_rag.lower.region import GemmRegion, KernelStep, PointwiseRegion

from .conftest import assert_program_matches, forward_task


def _kernels(path):
    prog = planned(partition(capture(path)))
    return prog, [s.region for s in prog.steps if isinstance(s, KernelStep)]


def _products(cap) -> list[str]:
    return [str(n.target) for n in cap.gm.graph.nodes if n.op == "call_function"]


def test_attention_scales_its_product_not_its_queries_and_keys(write_task):
    """torch decomposes scaled_dot_product_attention into q * s and k^T * s before the product:
    two kernels writing whole operands (the keys transposed). Both factors go to the product's
    epilogue; the operands are views of the inputs."""
    path = write_task(forward_task("return F.scaled_dot_product_attention(t[0], t[1], t[2])",
                                   "[torch.randn(2, 3, 17, 8), torch.randn(2, 3, 19, 8), torch.randn(2, 3, 19, 5)]"))
    prog, regions = _kernels(path)
    assert [r.kind for r in regions] == ["gemm", "reduction", "gemm"]
    first = regions[0]
    assert isinstance(first, GemmRegion)
    (out,) = first.outputs
    assert out.expr.op == "mul" and abs(out.expr.args[1].value - 8 ** -0.5) < 1e-12
    assert_program_matches(path, prog)


def test_a_divided_operand_and_a_scaled_one_multiply_the_product_once(write_task):
    path = write_task(forward_task("return torch.bmm(t[0] / 4.0, (t[1] * 3.0).transpose(1, 2))",
                                   "[torch.randn(2, 5, 6), torch.randn(2, 7, 6)]"))
    cap = capture(path)
    assert "aten.div.Tensor" not in _products(cap) and "aten.div.Scalar" not in _products(cap)
    prog, regions = _kernels(path)
    (gemm,) = regions
    assert gemm.outputs[0].expr.op == "mul" and gemm.outputs[0].expr.args[1].value == 0.75
    assert_program_matches(path, prog)


def test_a_scaled_operand_read_elsewhere_keeps_its_scaling(write_task):
    """x * 2 is also returned: it is computed anyway, and the product reads it."""
    path = write_task(forward_task("y = t[0] * 2.0; return y @ t[1], y",
                                   "[torch.randn(5, 6), torch.randn(6, 7)]"))
    prog, regions = _kernels(path)
    assert any(isinstance(r, PointwiseRegion) for r in regions)
    assert_program_matches(path, prog)


def test_a_linear_layers_bias_is_not_scaled_with_its_product(write_task):
    path = write_task(forward_task("return self.fc(t[0] * 0.5)", "[torch.randn(5, 6)]",
                                   init="self.fc = nn.Linear(6, 4)"))
    cap = capture(path)
    assert "aten.addmm.default" in _products(cap) and "aten.mul.Tensor" in _products(cap)
    prog, _ = _kernels(path)
    assert_program_matches(path, prog)


def test_a_tensor_factor_stays_where_it_is(write_task):
    """Only a Python number is a factor: a per-row tensor would not commute with the product."""
    path = write_task(forward_task("return (t[0] * t[2]) @ t[1]",
                                   "[torch.randn(5, 6), torch.randn(6, 7), torch.randn(5, 1)]"))
    cap = capture(path)
    assert "aten.mul.Tensor" in _products(cap)
    prog, _ = _kernels(path)
    assert_program_matches(path, prog)
    assert torch.ops.aten.mm.default in {n.target for n in cap.gm.graph.nodes}
