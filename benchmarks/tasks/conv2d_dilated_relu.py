"""Dilated 3x3 convolution (dilation 2, padding 2, same size) followed by ReLU.

Exercises: dilated taps with padding, a bias and an activation fused after the core.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 2, 3, 5, 10, 13
else:
    batch, c_in, c_out, height, width = 16, 64, 64, 128, 128


class Model(nn.Module):
    """relu(conv_dilated(x))."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=2, dilation=2)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.conv(x))


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
