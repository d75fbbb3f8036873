"""A reduction's full output that later kernels only gather from, sparsely, is recomputed at the
gathered positions (cross-entropy reads one log-softmax element per row): the producer keeps its
statistics and never stores the output. Each plan runs against the task's own forward; outputs
read plainly, or gathered densely, stay stored."""

from __future__ import annotations

import pytest

from akg_rag.lower.assemble import planned
from akg_rag.lower.capture import capture
from akg_rag.lower.partition import partition
from akg_rag.lower.region import KernelStep

from .conftest import assert_program_matches, forward_task


def _plan(write_task, source: str):
    path = write_task(source)
    prog = planned(partition(capture(path)))
    big = [o.value.name for s in prog.steps if isinstance(s, KernelStep) and s.region.kind == "reduction"
           for o in s.region.outputs if o.domain == "full" and o.value.name not in {v.name for v in prog.outputs}]
    return path, prog, big


LOGITS = "torch.randn(64, 300) * 3"
TARGETS = "torch.randint(0, 300, (64,))"


@pytest.mark.parametrize("forward, inputs", [
    ("return F.cross_entropy(t[0], t[1])", f"[{LOGITS}, {TARGETS}]"),
    ("return F.nll_loss(F.log_softmax(t[0], dim=1), t[1], reduction='sum')", f"[{LOGITS}, {TARGETS}]"),
    # two probabilities per row, gathered from a softmax
    ("return torch.gather(torch.softmax(t[0], 1), 1, t[1]) * 2.0", f"[{LOGITS}, torch.randint(0, 300, (64, 2))]"),
    # ignored targets read `other` (0) as before
    ("return F.cross_entropy(t[0], t[1], ignore_index=7)", f"[{LOGITS}, torch.randint(0, 9, (64,))]"),
])
def test_a_sparsely_gathered_reduction_output_is_recomputed(write_task, forward, inputs):
    path, prog, big = _plan(write_task, forward_task(forward, inputs))
    assert big == [], big   # no full-size intermediate is stored
    assert_program_matches(path, prog)


@pytest.mark.parametrize("forward, inputs", [
    # the softmax is also read plainly, by a mean: it must exist
    ("s = torch.softmax(t[0], 1); return torch.gather(s, 1, t[1]) + s.mean()",
     f"[{LOGITS}, torch.randint(0, 300, (64, 1))]"),
    # every element gathered (a permutation of the columns): storing it is no more work
    ("return torch.softmax(t[0], 1)[:, t[1]]", f"[{LOGITS}, torch.randperm(300)]"),
])
def test_a_plainly_or_densely_read_output_stays_stored(write_task, forward, inputs):
    path, prog, big = _plan(write_task, forward_task(forward, inputs))
    assert len(big) == 1, big
    assert_program_matches(path, prog)


def test_recomputed_cross_entropy_is_correct_through_triton(tmp_path):
    """The gathered statistics and input element, judged by the verifier through the Triton
    interpreter."""
    from akg_rag.lower.assemble import lower_task
    from akg_rag.verify import verify

    path = tmp_path / "task.py"
    path.write_text("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
                    + forward_task("return F.cross_entropy(t[0], t[1])", f"[{LOGITS}, {TARGETS}]"))
    src, report = lower_task(path, "triton", "cuda")
    assert "stat_" in src
    res = verify(path, candidate_source=src, dsl="triton", backend="cpu", options={"timing": False, "trials": 2})
    assert res.status == "correct", res.feedback
