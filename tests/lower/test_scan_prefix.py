"""A constant identity prefix of a scan's result moves into the scan (``cat([0, cumsum(y)])`` ->
``cumsum(cat([0, y]))``): one scan kernel instead of a scan and a shifted copy. Each plan runs
against the task's own forward; what must not be rewritten is not."""

from __future__ import annotations

import pytest

from akg_rag.lower.capture import capture
from akg_rag.lower.partition import partition
from akg_rag.lower.region import FallbackStep, KernelStep

from .conftest import assert_program_matches, forward_task


def _plan(write_task, source: str):
    path = write_task(source)
    cap = capture(path)
    nodes = [n for n in cap.gm.graph.nodes if n.op == "call_function"]
    prog = partition(cap)
    assert not [s.op for s in prog.steps if isinstance(s, FallbackStep)]
    return path, prog, nodes, [s.region.kind for s in prog.steps if isinstance(s, KernelStep)]


def _scan_inside_cat(nodes) -> bool:
    """Whether some concatenation takes a scan's result as a piece (the form as written)."""
    return any(str(n.target) == "aten.cat.default" and
               any(str(getattr(p, "target", "")) in ("aten.cumsum.default", "aten.cumprod.default") for p in n.args[0])
               for n in nodes)


@pytest.mark.parametrize("forward, inputs", [
    # exclusive cumsum as KernelBench writes it: zeros column, then the sum of all but the last
    ("x = t[0]; return torch.cat((torch.zeros_like(x.select(1, 0).unsqueeze(1)), "
     "torch.cumsum(x.narrow(1, 0, x.size(1) - 1), dim=1)), dim=1)", "[torch.randn(5, 300)]"),
    # along dim 0, a prefix of two rows, the constant built with its shape
    ("x = t[0]; return torch.cat([torch.zeros(2, x.size(1)), torch.cumsum(x[:-2], 0)], 0)",
     "[torch.randn(40, 7)]"),
    # a product behind a column of ones, on a 3-D tensor's middle dim
    ("x = t[0]; return torch.cat([torch.ones(x.size(0), 1, x.size(2)), torch.cumprod(x[:, 1:], 1)], 1)",
     "[torch.rand(3, 9, 6) + 0.5]"),
    # full() with the identity, the scan over the whole (not narrowed) input
    ("x = t[0]; return torch.cat([torch.full((x.size(0), 3), 0.0), x.cumsum(-1)], -1)",
     "[torch.randn(4, 50)]"),
])
def test_an_identity_prefix_joins_the_scan(write_task, forward, inputs):
    path, prog, nodes, kinds = _plan(write_task, forward_task(forward, inputs))
    assert not _scan_inside_cat(nodes)
    assert kinds == ["scan"], kinds
    assert_program_matches(path, prog)


@pytest.mark.parametrize("forward, inputs", [
    # 1 is not a sum's identity
    ("x = t[0]; return torch.cat([torch.ones(x.size(0), 1), torch.cumsum(x, 1)], 1)", "[torch.randn(4, 30)]"),
    # the constant after the scan is a suffix, not a prefix
    ("x = t[0]; return torch.cat([torch.cumsum(x, 1), torch.zeros(x.size(0), 1)], 1)", "[torch.randn(4, 30)]"),
    # the scan's result is read elsewhere too
    ("x = t[0]; c = torch.cumsum(x, 1); return torch.cat([torch.zeros(x.size(0), 1), c], 1) * c.sum()",
     "[torch.randn(4, 30)]"),
    # concatenated along another dim than the scan's
    ("x = t[0]; return torch.cat([torch.zeros(1, x.size(1)), torch.cumsum(x, 1)], 0)", "[torch.randn(4, 30)]"),
])
def test_other_concatenations_stay_as_written(write_task, forward, inputs):
    path, prog, nodes, kinds = _plan(write_task, forward_task(forward, inputs))
    assert _scan_inside_cat(nodes)
    assert len(kinds) >= 2, kinds
    assert_program_matches(path, prog)


def test_the_exclusive_scan_is_one_kernel_and_correct_through_triton(tmp_path):
    """The shifted read (the scan's prologue gathers the input one position back) judged by the
    verifier through the Triton interpreter, on rows longer than one block."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.verify import verify

    path = tmp_path / "task.py"
    path.write_text("import torch\nimport torch.nn as nn\n\n" + forward_task(
        "x = t[0]; return torch.cat((torch.zeros_like(x.select(1, 0).unsqueeze(1)), "
        "torch.cumsum(x.narrow(1, 0, x.size(1) - 1), dim=1)), dim=1)", "[torch.randn(6, 2500)]"))
    src, report = lower_task(path, "triton", "cuda")
    assert [k.kind for k in report.kernels] == ["scan"]
    res = verify(path, candidate_source=src, dsl="triton", backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback
