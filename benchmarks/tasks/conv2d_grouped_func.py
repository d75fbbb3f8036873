"""Grouped 3x3 convolution in functional form: F.conv2d(x, w, b, padding=1, groups=g).

Exercises: groups > 1 with several channels per group; weight and bias as plain parameters.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, groups, height, width = 2, 6, 9, 3, 8, 11
else:
    batch, c_in, c_out, groups, height, width = 16, 128, 256, 4, 96, 96


class Model(nn.Module):
    """Grouped convolution with bias."""

    def __init__(self, c_in: int, c_out: int, groups: int):
        super().__init__()
        fan_in = c_in // groups * 9
        self.weight = nn.Parameter(torch.randn(c_out, c_in // groups, 3, 3) / fan_in ** 0.5)
        self.bias = nn.Parameter(torch.randn(c_out) * 0.1)
        self.groups = groups

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, self.weight, self.bias, padding=1, groups=self.groups)


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out, groups]
