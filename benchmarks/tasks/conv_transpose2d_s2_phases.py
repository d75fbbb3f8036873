"""2-D transposed convolution that doubles the size (4x4, stride 2, padding 1), then a ReLU.

Exercises: a strided transposed convolution over channels in blocks of 16, walked phase by phase
(each program's outputs share ``o mod 2`` along both dims and visit only the 2x2 taps that reach
them); a bias and an activation tail.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 2, 16, 12, 5, 7
else:
    batch, c_in, c_out, height, width = 16, 128, 64, 64, 96


class Model(nn.Module):
    """relu(conv_transpose2d(x)), twice the spatial size."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(c_in, c_out, 4, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.up(x))


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
