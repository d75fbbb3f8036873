"""Convolution followed by group norm over its output channels.

Exercises: a conv core whose tail reduces over (channel group, H, W).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, groups, height, width = 2, 3, 8, 2, 9, 7
else:
    batch, c_in, c_out, groups, height, width = 16, 32, 128, 16, 96, 96


class Model(nn.Module):
    """GroupNorm(conv(x))."""

    def __init__(self, c_in: int, c_out: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)
        self.norm = nn.GroupNorm(groups, c_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.conv(x))


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out, groups]
