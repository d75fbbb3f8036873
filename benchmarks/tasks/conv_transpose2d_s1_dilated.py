"""2-D transposed convolution at stride 1 (3x3, dilation 2, padding 1) followed by a leaky ReLU.

Exercises: a transposed convolution that reads one input position a tap (stride 1), so it lowers
like a plain convolution (tap by tap over channel blocks, the transposed weight sliced as is);
dilation and padding moving the taps, a bias, an activation tail.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 2, 16, 20, 6, 9
else:
    batch, c_in, c_out, height, width = 16, 64, 96, 96, 128


class Model(nn.Module):
    """leaky_relu(conv_transpose2d(x), 0.1)."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(c_in, c_out, 3, stride=1, padding=1, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(self.up(x), 0.1)


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
