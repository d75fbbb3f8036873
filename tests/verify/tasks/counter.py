"""Test task: an output that reads state forward updates (a call counter): y = x * calls."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return x * self.calls


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
