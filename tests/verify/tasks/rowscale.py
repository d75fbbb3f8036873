"""Test task: y = relu(x * w) with a learned per-column weight w (tests identical weights)."""

import torch
import torch.nn as nn

M, N = 64, 256


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * self.weight)


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return [N]
