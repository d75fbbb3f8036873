"""akg_rag.verify.attribution on plain launches (no child process): which launches Classify calls
trivial, and what Ablate's poison leaves behind."""

from __future__ import annotations

import torch

from akg_rag.verify.attribution import Ablate, Classify


def _launch(classify: Classify, fn, *args: torch.Tensor) -> None:
    classify("triton", "k0", lambda: fn(*args), args, {})


def test_a_full_reduction_into_one_element_is_work():
    x, out = torch.randn(37, 5), torch.empty(1)
    c = Classify()
    _launch(c, lambda a, o: o.copy_(a.square().mean().reshape(1)), x, out)
    assert c.launches == 1 and c.trivial == 0, c.examples


def test_fills_and_copies_are_still_trivial():
    x, filled, copied = torch.randn(37, 5), torch.empty(37, 5), torch.empty(185)
    c = Classify()
    _launch(c, lambda o: o.fill_(0.5), filled)
    _launch(c, lambda a, o: o.copy_(a.reshape(-1)), x, copied)
    _launch(c, lambda a: None, x)
    assert c.launches == 3 and c.trivial == 3
    assert any("fills constants" in e for e in c.examples) and any("writes nothing" in e for e in c.examples)


def test_poison_spoils_every_dtype_a_kernel_writes_and_spares_protected_storage():
    f = torch.randn(5)
    i = torch.arange(6)
    mask = torch.tensor([True, False, True, True])   # the right answer, left in a reused block
    kept = torch.randn(3)
    before = (mask.clone(), kept.clone())
    ab = Ablate(protected={kept.untyped_storage().data_ptr()})
    ab._poison([f, i, mask, kept, torch.empty(0)])
    assert f.isnan().all()
    assert (i == torch.iinfo(torch.int64).min).all()
    # a bool output holding the reference's answer must not still hold it: every element flipped
    assert torch.equal(mask, ~before[0])
    assert torch.equal(kept, before[1])


def test_a_skipped_extension_call_is_counted_and_its_outputs_poisoned():
    out = torch.zeros(4, dtype=torch.bool)
    ab = Ablate(protected=set())
    result = ab("extension", "k0", lambda: out, (torch.ones(4),), {})
    assert ab.launches == 1 and result is out and out.all()
