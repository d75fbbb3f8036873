"""Per-channel affine and ReLU, then 2x2 max pooling: max_pool2d(relu(x * s + b), 2).

Exercises: a pointwise prologue in front of a pooling window.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 5, 9, 12
else:
    batch, channels, height, width = 32, 64, 128, 128


class Model(nn.Module):
    """Scale, shift, rectify, pool."""

    def __init__(self, channels: int):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(channels, 1, 1) + 0.5)
        self.shift = nn.Parameter(torch.randn(channels, 1, 1) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool2d(torch.relu(x * self.scale + self.shift), 2)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
