"""Running product along each row: x.cumprod(dim=-1) for factors near 1.

Exercises: a multiplicative scan over the contiguous dim (factors 1 + 0.01 * N(0, 1), so the
running product stays in range over thousands of steps).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 13, 150
else:
    rows, cols = 16384, 2048


class Model(nn.Module):
    """Cumulative product over the last dim."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.cumprod(dim=-1)


def get_inputs():
    return [1.0 + 0.01 * torch.randn(rows, cols)]


def get_init_inputs():
    return []
