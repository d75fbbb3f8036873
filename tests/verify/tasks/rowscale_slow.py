"""Test task: the same y = relu(x * w) as rowscale.py, computed one row at a time in Python.

Its eager time is dominated by per-row dispatch, so a real kernel beats it by far more than 10x:
the verifier must flag such a speedup for review.
"""

import torch
import torch.nn as nn

M, N = 1024, 256


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([torch.relu(x[i] * self.weight) for i in range(x.shape[0])])


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return [N]
