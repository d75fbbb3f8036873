"""Instance norm with affine parameters on NCHW: statistics per (sample, channel) over H, W.

Exercises: nn.InstanceNorm2d(affine=True); reduced dims are the two trailing ones.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 5, 13, 10
else:
    batch, channels, height, width = 16, 128, 128, 128


class Model(nn.Module):
    """nn.InstanceNorm2d(C, affine=True)."""

    def __init__(self, channels: int):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels, affine=True)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.3, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2]


def get_init_inputs():
    return [channels]
