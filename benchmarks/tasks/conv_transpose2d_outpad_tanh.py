"""2-D transposed convolution (3x3, stride 2, padding 1, output_padding 1) followed by tanh.

Exercises: output_padding (the extra last row and column), a bias, an activation tail.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 2, 4, 3, 7, 5
else:
    batch, c_in, c_out, height, width = 16, 128, 64, 64, 64


class Model(nn.Module):
    """tanh(conv_transpose2d(x))."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(c_in, c_out, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.up(x))


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
