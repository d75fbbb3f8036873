"""Residual add with a learned scalar gain, then a clamp: (x + alpha * r).clamp(-1.5, 2.5).

Exercises: a 0-d parameter, clamp with both bounds (method style).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (11, 3, 35)
else:
    shape = (128, 256, 1536)


class Model(nn.Module):
    """x + alpha * residual, clamped to [-1.5, 2.5]."""

    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.tensor(0.5))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return (x + self.alpha * residual).clamp(min=-1.5, max=2.5)


def get_inputs():
    return [torch.randn(*shape), torch.randn(*shape)]


def get_init_inputs():
    return []
