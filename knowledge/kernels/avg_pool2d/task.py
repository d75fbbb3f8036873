"""2D average pooling, NCHW, kernel 3, stride = kernel, no padding."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, channels, height, width = 2, 3, 10, 13
else:
    batch_size, channels, height, width = 16, 64, 256, 256
kernel_size = 3


class Model(nn.Module):
    """Averages each kernel window (stride defaults to the kernel size)."""

    def __init__(self, kernel_size: int, stride: int | None = None, padding: int = 0):
        super().__init__()
        self.avg_pool = nn.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.avg_pool(x)


def get_inputs():
    x = torch.randn(batch_size, channels, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size]
