"""RMS norm written as a formula: x * rsqrt(mean(x^2, -1) + eps) * w.

Exercises: a hand-written norm (pow, mean with keepdim, rsqrt), a weight over the last dim.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    tokens, dim = 29, 83
else:
    tokens, dim = 8192, 4096


class Model(nn.Module):
    """Root-mean-square normalisation with a learned gain."""

    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inv = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * inv * self.weight


def get_inputs():
    return [torch.randn(tokens, dim)]


def get_init_inputs():
    return [dim, 1e-6]
