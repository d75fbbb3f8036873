"""LeakyReLU activation on a (batch, dim) float32 tensor: y = x if x >= 0 else negative_slope * x.

Elementwise, memory-bound. With AKG_TASK_SCALE=small the row length is not a multiple of any
power-of-two block, so a kernel's tail masking is exercised.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Applies LeakyReLU elementwise to its input."""

    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the activation of x: same shape and dtype."""
        return F.leaky_relu(x, negative_slope=self.negative_slope)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384
negative_slope = 0.01


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [negative_slope]
