"""1-D transposed convolution that doubles the length: kernel 4, stride 2, padding 1.

Exercises: a transposed (gather-form) 1-D convolution with bias.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, length = 2, 5, 3, 17
else:
    batch, c_in, c_out, length = 32, 128, 64, 8192


class Model(nn.Module):
    """nn.ConvTranspose1d(c_in, c_out, 4, stride=2, padding=1)."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.up = nn.ConvTranspose1d(c_in, c_out, kernel_size=4, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.up(x)


def get_inputs():
    return [torch.randn(batch, c_in, length)]


def get_init_inputs():
    return [c_in, c_out]
