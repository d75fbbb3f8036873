"""Matrix-vector product plus an offset vector: torch.mv(A, v) + c.

Exercises: a 1-D right operand (N = 1), bandwidth bound at full scale.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    m, k = 45, 37
else:
    m, k = 16384, 8192


class Model(nn.Module):
    """A v + c."""

    def forward(self, a: torch.Tensor, v: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.mv(a, v) + c


def get_inputs():
    return [torch.randn(m, k), torch.randn(k), torch.randn(m)]


def get_init_inputs():
    return []
