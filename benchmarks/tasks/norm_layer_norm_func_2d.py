"""Functional layer norm over the two trailing dims with weight and bias of shape [S, D].

Exercises: F.layer_norm with a rank-2 normalised shape and explicit parameters, eps = 1e-6.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, seq, dim = 4, 6, 23
else:
    batch, seq, dim = 128, 256, 1024


class Model(nn.Module):
    """F.layer_norm(x, (seq, dim), w, b)."""

    def __init__(self, seq: int, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(seq, dim) + 0.5)
        self.bias = nn.Parameter(torch.randn(seq, dim) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, eps=1e-6)


def get_inputs():
    return [torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [seq, dim]
