"""3-D convolution (3x3x3, no padding) with a learned per-output-channel scale after it.

Exercises: a volumetric convolution core and a [C_out, 1, 1, 1] parameter in the tail.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, depth, height, width = 1, 2, 3, 5, 7, 6
else:
    batch, c_in, c_out, depth, height, width = 8, 16, 32, 32, 96, 96


class Model(nn.Module):
    """conv3d(x) * scale[c]."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv3d(c_in, c_out, kernel_size=3)
        self.scale = nn.Parameter(torch.rand(c_out, 1, 1, 1) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x) * self.scale


def get_inputs():
    return [torch.randn(batch, c_in, depth, height, width)]


def get_init_inputs():
    return [c_in, c_out]
