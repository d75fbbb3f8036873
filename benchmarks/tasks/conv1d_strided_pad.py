"""1-D convolution, kernel 5, stride 2, padding 2, with bias, on [N, C, L].

Exercises: a strided, padded 1-D convolution core.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, length = 2, 3, 7, 33
else:
    batch, c_in, c_out, length = 32, 64, 128, 16384


class Model(nn.Module):
    """nn.Conv1d(c_in, c_out, 5, stride=2, padding=2)."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, kernel_size=5, stride=2, padding=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, c_in, length)]


def get_init_inputs():
    return [c_in, c_out]
