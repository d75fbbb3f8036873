"""3-D transposed convolution (kernel 2, stride 2: no overlap), then a 0.5 scale and a shift.

Exercises: a volumetric transposed convolution and a scalar epilogue.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, depth, height, width = 1, 3, 2, 3, 5, 4
else:
    batch, c_in, c_out, depth, height, width = 2, 64, 32, 32, 64, 64


class Model(nn.Module):
    """0.5 * conv_transpose3d(x) + 0.1."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.up = nn.ConvTranspose3d(c_in, c_out, kernel_size=2, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.up(x) * 0.5 + 0.1


def get_inputs():
    return [torch.randn(batch, c_in, depth, height, width)]


def get_init_inputs():
    return [c_in, c_out]
