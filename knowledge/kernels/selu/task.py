"""SELU activation on a (batch, dim) float32 tensor.

y = scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) with the fixed SELU constants
(alpha ~ 1.6733, scale ~ 1.0507).

Elementwise, memory-bound. With AKG_TASK_SCALE=small the row length is not a multiple of any
power-of-two block, so a kernel's tail masking is exercised.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Applies SELU elementwise to its input."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the activation of x: same shape and dtype."""
        return torch.selu(x)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
