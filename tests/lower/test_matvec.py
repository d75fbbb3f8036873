"""Matrix-vector products (one output dim of 1) become a multiply and a sum, planned as reductions;
every other product stays a GEMM. Each plan runs against the task's own forward."""

from __future__ import annotations

import pytest

from akg_rag.lower.capture import capture
from akg_rag.lower.partition import partition
from akg_rag.lower.region import FallbackStep, KernelStep

from .conftest import assert_program_matches, forward_task



def _plan(write_task, source: str):
    path = write_task(source)
    cap = capture(path)
    ops = [str(n.target) for n in cap.gm.graph.nodes if n.op == "call_function"]
    prog = partition(cap)
    kinds = [s.region.kind for s in prog.steps if isinstance(s, KernelStep)]
    assert not [s.op for s in prog.steps if isinstance(s, FallbackStep)]
    return path, prog, ops, kinds


@pytest.mark.parametrize("forward, inputs, init", [
    ("return torch.matmul(t[0], t[1])", "[torch.randn(33, 64), torch.randn(64, 1)]", ""),   # N = 1
    ("return t[0] @ t[1] * 2.0", "[torch.randn(1, 70), torch.randn(70, 45)]", ""),           # M = 1
    ("return torch.mv(t[0], t[1]) + t[2]", "[torch.randn(9, 40), torch.randn(40), torch.randn(9)]", ""),
    ("return torch.bmm(t[0], t[1]).relu()", "[torch.randn(3, 5, 64), torch.randn(3, 64, 1)]", ""),
    ("return torch.bmm(t[1].transpose(1, 2), t[0].transpose(1, 2))",
     "[torch.randn(3, 5, 64), torch.randn(3, 64, 1)]", ""),                                   # batched M = 1
    ("return self.lin(t[0])", "[torch.randn(6, 50)]", "self.lin = nn.Linear(50, 1)"),          # addmm
    ("return torch.sigmoid(self.lin(t[0]))", "[torch.randn(1, 50)]", "self.lin = nn.Linear(50, 30)"),
])
def test_matrix_vector_products_are_reductions(write_task, forward, inputs, init):
    path, prog, ops, kinds = _plan(write_task, forward_task(forward, inputs, init))
    assert not any(op.startswith(("aten.mm", "aten.bmm", "aten.mv", "aten.addmm")) for op in ops), ops
    assert kinds and set(kinds) == {"reduction"}, kinds
    assert_program_matches(path, prog)


def test_half_operands_are_summed_in_float32(write_task):
    path, prog, ops, kinds = _plan(write_task, forward_task(
        "return t[0] @ t[1]", "[torch.randn(20, 300).half(), torch.randn(300, 1).half()]"))
    assert ops.count("prims.convert_element_type.default") == 3 and kinds == ["reduction"]
    assert_program_matches(path, prog, atol=2e-3)


@pytest.mark.parametrize("inputs", ["[torch.randn(8, 64), torch.randn(64, 2)]",
                                    "[torch.randn(2, 3, 64), torch.randn(2, 64, 4)]"])
def test_other_products_stay_gemms(write_task, inputs):
    op = "torch.bmm" if "2, 3, 64" in inputs else "torch.mm"
    path, prog, ops, kinds = _plan(write_task, forward_task(f"return {op}(t[0], t[1])", inputs))
    assert kinds == ["gemm"]
    assert_program_matches(path, prog)


def test_the_suite_matvec_has_no_library_form(monkeypatch):
    """In library mode too the product is a generated reduction: there is no core to keep."""
    from pathlib import Path

    from akg_rag.lower.assemble import NoLibraryForm, lower_task

    monkeypatch.setenv("AKG_TASK_SCALE", "small")
    task = Path(__file__).resolve().parents[2] / "benchmarks" / "tasks" / "gemm_matvec_bias.py"
    with pytest.raises(NoLibraryForm, match="no GEMM or conv core"):
        lower_task(task, "triton", "cuda", cores="library", sketch_only=True)
    _, report = lower_task(task, "triton", "cuda", sketch_only=True)
    assert [k.kind for k in report.kernels] == ["reduction"] and not report.partial
