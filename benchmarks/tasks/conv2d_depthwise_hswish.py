"""Depthwise 3x3 convolution (groups = channels) followed by hardswish, a mobile-net block body.

Exercises: one input channel per output channel, padding 1, an activation tail.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 7, 12, 9
else:
    batch, channels, height, width = 32, 144, 112, 112


class Model(nn.Module):
    """hardswish(depthwise_conv(x))."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardswish(self.conv(x))


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
