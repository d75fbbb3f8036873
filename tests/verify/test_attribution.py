"""akg_rag.verify.attribution.Classify on plain launches (no child process): which launches are trivial."""

from __future__ import annotations

import torch

from akg_rag.verify.attribution import Classify


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
