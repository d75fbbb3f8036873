"""Depthwise 2D convolution (groups = channels), NCHW, 3x3 kernel, stride 1, padding 1, no bias."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, in_channels, height, width = 2, 3, 9, 11
else:
    batch_size, in_channels, height, width = 16, 64, 256, 256
kernel_size = 3
stride = 1
padding = 1


class Model(nn.Module):
    """Convolves every channel with its own square kernel."""

    def __init__(self, in_channels: int, kernel_size: int, stride: int = 1, padding: int = 0):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, in_channels, kernel_size, stride=stride,
                                padding=padding, groups=in_channels, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2d(x)


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, kernel_size, stride, padding]
