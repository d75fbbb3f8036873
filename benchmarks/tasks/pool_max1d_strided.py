"""1-D max pooling with kernel 3, stride 2, padding 1 on [N, C, L].

Exercises: a strided 1-D window with -inf padding at both ends.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, length = 3, 5, 29
else:
    batch, channels, length = 32, 128, 16384


class Model(nn.Module):
    """nn.MaxPool1d(3, stride=2, padding=1)."""

    def __init__(self, kernel: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [3, 2, 1]
