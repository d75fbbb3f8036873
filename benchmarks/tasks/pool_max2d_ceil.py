"""2-D max pooling, kernel 3, stride 2, ceil_mode=True, no padding (functional form).

Exercises: ceil_mode's extra last window that hangs over the edge of the input.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 4, 10, 14
else:
    batch, channels, height, width = 16, 96, 192, 192


class Model(nn.Module):
    """F.max_pool2d(x, 3, 2, ceil_mode=True)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool2d(x, kernel_size=3, stride=2, ceil_mode=True)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return []
