"""2D convolution with bias followed by ReLU (NCHW, 3x3 kernel, no padding)."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, in_channels, out_channels, height, width = 2, 3, 5, 9, 11
else:
    batch_size, in_channels, out_channels, height, width = 64, 16, 32, 128, 128
kernel_size = 3


class Model(nn.Module):
    """Convolution (with its bias) followed by a rectified linear unit."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x)
        return torch.relu(x)


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
