"""2-D max pooling with a dilated 3x3 window (dilation 2), stride 2, padding 1.

Exercises: dilation (taps two pixels apart) together with stride and padding.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 3, 13, 11
else:
    batch, channels, height, width = 32, 64, 128, 128


class Model(nn.Module):
    """nn.MaxPool2d(3, stride=2, padding=1, dilation=2)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return []
