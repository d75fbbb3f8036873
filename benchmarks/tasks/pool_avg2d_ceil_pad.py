"""2-D average pooling, kernel 3, stride 2, padding 1, ceil_mode=True (padding counted).

Exercises: torch's divisor rule when a ceil-mode window runs past the padded edge.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 3, 12, 9
else:
    batch, channels, height, width = 32, 64, 160, 160


class Model(nn.Module):
    """F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return []
