"""HardTanh activation on a (batch, dim) float32 tensor: y = clamp(x, min_val, max_val).

Elementwise, memory-bound. With AKG_TASK_SCALE=small the row length is not a multiple of any
power-of-two block, so a kernel's tail masking is exercised.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Applies HardTanh elementwise to its input."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the activation of x: same shape and dtype."""
        return F.hardtanh(x, min_val=self.min_val, max_val=self.max_val)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384
min_val = -1.0
max_val = 1.0


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [min_val, max_val]
