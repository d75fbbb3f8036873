"""Per-channel affine transform of an NCHW tensor followed by ReLU: relu(x * scale[c] + shift[c]).

Exercises: parameters of shape [C, 1, 1] broadcast over N, H, W; a multiply-add-max chain.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 2, 7, 11, 13
else:
    batch, channels, height, width = 16, 96, 112, 112


class Model(nn.Module):
    """relu(x * scale + shift) with one scale and one shift per channel."""

    def __init__(self, channels: int):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(channels, 1, 1) + 0.5)
        self.shift = nn.Parameter(torch.randn(channels, 1, 1) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * self.scale + self.shift)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
