"""2D convolution followed by HardSwish (NCHW, 3x3 kernel, no padding)."""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, in_channels, out_channels, height, width = 2, 3, 5, 9, 11
else:
    batch_size, in_channels, out_channels, height, width = 64, 16, 32, 128, 128
kernel_size = 3


class Model(nn.Module):
    """Convolution followed by the hard-swish activation x * relu6(x + 3) / 6."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x)
        return F.hardswish(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
