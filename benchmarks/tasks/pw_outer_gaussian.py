"""A Gaussian kernel matrix from two point sets on a line: w[j] * exp(-(a[i] - b[j])^2 / s).

Exercises: outer broadcasting [M, 1] against [1, N], a parameter on the last dim, pow and exp.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    m, n = 33, 21
else:
    m, n = 8192, 8192


class Model(nn.Module):
    """Pairwise Gaussian similarities weighted per column."""

    def __init__(self, n: int, width: float):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n))
        self.width = width

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        d = a - b
        return self.weight * torch.exp(-d.pow(2) / self.width)


def get_inputs():
    return [torch.randn(m, 1), torch.randn(1, n)]


def get_init_inputs():
    return [n, 0.5]
