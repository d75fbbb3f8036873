"""akg_rag.verify.tensors.BufferState: the judge puts a model's buffers back to how they were built
before each compared forward, however forward changed them."""

from __future__ import annotations

import torch
import torch.nn as nn

from akg_rag.verify.tensors import BufferState


class _Counting(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))
        self.bn = nn.BatchNorm1d(3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls = self.calls + 1          # rebinds the buffer to a new tensor
        return self.bn(x) * self.calls + self.bn.running_mean


def test_restore_undoes_in_place_updates_and_rebound_buffers():
    torch.manual_seed(0)
    m = _Counting()
    state = BufferState(m)
    x = torch.randn(4, 3)
    first = m(x)
    for _ in range(3):                       # timing runs the judge does not compare
        m(torch.randn(4, 3))
    assert m.calls.item() == 4 and m.bn.num_batches_tracked.item() == 4
    state.restore()
    assert m.calls.item() == 0 and m.bn.num_batches_tracked.item() == 0
    assert torch.equal(m.bn.running_mean, torch.zeros(3)) and torch.equal(m.bn.running_var, torch.ones(3))
    torch.testing.assert_close(m(x), first)   # the same forward from the same state


def test_a_model_without_buffers_is_left_alone():
    lin = nn.Linear(3, 2)
    w = lin.weight.detach().clone()
    state = BufferState(lin)
    with torch.no_grad():
        lin.weight.add_(1)
    state.restore()                          # parameters are not state the judge resets
    assert torch.equal(lin.weight, w + 1)
