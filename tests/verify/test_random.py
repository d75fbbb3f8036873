"""Forwards that draw random numbers: the verifier reseeds before each compared forward.

The task (tests/verify/tasks/tanh_dropout.py) applies training-mode dropout. Its lowered
candidates keep the mask draw as a torch call (the lowering's partial fallback) and fuse the rest;
they match only because the judge and the candidate process reseed the generators alike before
every forward. A candidate that leaves dropout out (scaling by the keep probability instead, so its
expected value is right) must still be judged incorrect.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from akg_rag.lower.assemble import lower_task
from akg_rag.verify.executor import LocalExecutor, make_job
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.reference import Reference
from akg_rag.verify.tensors import draw_inputs, forward_seed, reseed

HERE = Path(__file__).parent
TASK = HERE / "tasks" / "tanh_dropout.py"
# three trials (three masks), no timing: this file is about correctness
FAST = {"trials": 3, "timing": False, "timeout_s": 300.0}
DRAW = re.compile(r"torch\.ops\.aten\.native_dropout\.default\((\w+), ([0-9.]+), True\)")


def test_reseed_repeats_the_mask_and_keeps_it_apart_from_the_inputs():
    x = torch.randn(64, 64)
    reseed(7)
    a = F.dropout(x, 0.5, training=True)
    torch.rand(1000)                              # whatever ran in between does not matter
    reseed(7)
    b = F.dropout(x, 0.5, training=True)
    reseed(8)
    c = F.dropout(x, 0.5, training=True)
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert forward_seed(7) != 7 and forward_seed(7) != forward_seed(8)
    # the mask is not the input stream again: inputs drawn from seed 7 are not the mask's uniforms
    (inputs,) = draw_inputs(lambda: [[torch.rand(64, 64)]], 7, torch.device("cpu"))
    assert not torch.equal((inputs[0] < 0.5), (a == 0))


def test_reference_outputs_are_forwards_right_after_a_reseed():
    """Each input set's reference output is the forward run right after ``reseed(seed)``: the mask of
    the second set does not depend on what the first forward drew (the candidate process does the
    same, so the two sides agree whatever order or count of draws came before)."""
    job = {"backend": "cpu", "task_path": str(TASK), "task_source": TASK.read_text(), "options": {}}
    ref = Reference(job, VerifyOptions(), [])
    ref.open()
    outs = ref.outputs(11)
    assert len(outs) == 2
    for s, inputs in enumerate(ref.inputs(11)):
        reseed(11)
        with torch.no_grad():
            alone = ref.model(*inputs)
        assert torch.equal(outs[s], alone), f"input set {s}"


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory, cache_dir):
    """The lowered C++ candidate (dropout kept as a torch call), the lowered Triton one with the
    draw replaced by the keep probability, and a hand-written Triton one calling F.dropout between
    its kernels (both run by the interpreter), verified two at a time."""
    out = tmp_path_factory.mktemp("dropout")
    cpp, cpp_report = lower_task(TASK, "cpp", "cpu")
    tri, _ = lower_task(TASK, "triton", "cuda")   # run here by the Triton interpreter
    assert cpp is not None and tri is not None
    assert cpp_report.fallbacks == ["aten.native_dropout.default"], cpp_report.fallbacks
    assert DRAW.search(tri), "the lowered candidate no longer leaves the mask draw to torch"
    skipped = DRAW.sub(r"(\1, None)", tri)       # dropout skipped: the input passes unchanged
    files = {"cpp": cpp, "skipped": skipped}
    jobs = []
    for name, source in files.items():
        (out / f"{name}.py").write_text(source)
        jobs.append(make_job(str(TASK), str(out / f"{name}.py"), dsl="cpp" if name == "cpp" else "triton",
                             backend="cpu", options=dict(FAST, cache_dir=cache_dir)))
    names = list(files) + ["kept"]
    jobs.append(make_job(str(TASK), str(HERE / "candidates" / "triton_dropout_kept.py"), dsl="triton",
                         backend="cpu", options=dict(FAST, cache_dir=cache_dir)))
    return dict(zip(names, LocalExecutor(jobs=2).map(jobs)))


def test_lowered_cpp_candidate_keeping_torch_dropout_is_correct(verdicts):
    r = verdicts["cpp"]
    assert r.status == "correct", r.feedback + r.log
    assert r.partial and any("native_dropout" in op for op in r.partial_ops), r.partial_ops


def test_candidate_calling_torch_dropout_between_its_kernels_is_correct(verdicts):
    r = verdicts["kept"]
    assert r.status == "correct", r.feedback + r.log
    assert r.partial


def test_candidate_that_skips_dropout_is_incorrect(verdicts):
    r = verdicts["skipped"]
    assert r.status == "incorrect", r.feedback + r.log
    assert r.mismatch and r.mismatch.get("trial") == 0
