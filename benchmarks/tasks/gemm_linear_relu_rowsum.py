"""Linear, ReLU, then the sum of each output row: relu(x @ W^T + b).sum(dim=1).

Exercises: a GEMM with an activation and a reduction over N after it ([M] result).
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, d_in, d_out = 23, 30, 17
else:
    batch, d_in, d_out = 16384, 2048, 2048


class Model(nn.Module):
    """Row sums of a rectified linear layer."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) / d_in ** 0.5)
        self.bias = nn.Parameter(torch.randn(d_out) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(F.linear(x, self.weight, self.bias)).sum(dim=1)


def get_inputs():
    return [torch.randn(batch, d_in)]


def get_init_inputs():
    return [d_in, d_out]
