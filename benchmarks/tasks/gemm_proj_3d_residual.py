"""Projection of a 3-D activation with a residual: x @ W + bias + x, W a square [D, D] parameter.

Exercises: a 3-D left operand against a 2-D weight (batch broadcast), bias and residual epilogue.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, seq, dim = 2, 15, 27
else:
    batch, seq, dim = 16, 1024, 2048


class Model(nn.Module):
    """x + (x @ W + b)."""

    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim, dim) / dim ** 0.5)
        self.bias = nn.Parameter(torch.randn(dim) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight + self.bias + x


def get_inputs():
    return [torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [dim]
