"""2D max pooling, NCHW, kernel 3, stride 2, padding 1."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, channels, height, width = 2, 3, 9, 11
else:
    batch_size, channels, height, width = 16, 64, 256, 256
kernel_size = 3
stride = 2
padding = 1


class Model(nn.Module):
    """Takes the maximum over each kernel window."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.maxpool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.maxpool(x)


def get_inputs():
    x = torch.randn(batch_size, channels, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
