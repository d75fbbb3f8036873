"""Convolution with a non-square kernel (3x5), stride (2, 1) and padding (1, 2).

Exercises: per-axis kernel sizes, strides and paddings.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 2, 3, 4, 11, 9
else:
    batch, c_in, c_out, height, width = 16, 48, 96, 128, 256


class Model(nn.Module):
    """nn.Conv2d(c_in, c_out, (3, 5), stride=(2, 1), padding=(1, 2))."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, (3, 5), stride=(2, 1), padding=(1, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
