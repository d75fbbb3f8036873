"""Convolution then global average pooling written as a mean: conv(x).mean(dim=(2, 3)).

Exercises: a conv core whose tail is a reduction over the spatial dims ([N, C_out] result).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 3, 4, 5, 8, 11
else:
    batch, c_in, c_out, height, width = 32, 64, 256, 64, 64


class Model(nn.Module):
    """Spatial mean of a 3x3 convolution's output."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x).mean(dim=(2, 3))


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
