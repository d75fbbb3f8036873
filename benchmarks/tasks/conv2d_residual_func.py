"""Same-size 3x3 convolution without bias, added to its input: x + F.conv2d(x, w, padding=1).

Exercises: a residual that reads the convolution's own input in the tail.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 5, 7, 10
else:
    batch, channels, height, width = 16, 96, 96, 96


class Model(nn.Module):
    """Residual 3x3 convolution."""

    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels, channels, 3, 3) / (channels * 9) ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + F.conv2d(x, self.weight, padding=1)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
