"""Softplus activation on a (batch, dim) float32 tensor.

y = log(1 + exp(x)) with the defaults beta = 1 and threshold = 20 (y = x where x > 20).

Elementwise, memory-bound. With AKG_TASK_SCALE=small the row length is not a multiple of any
power-of-two block, so a kernel's tail masking is exercised.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Applies Softplus elementwise to its input."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the activation of x: same shape and dtype."""
        return F.softplus(x)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
