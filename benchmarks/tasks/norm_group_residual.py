"""Group norm plus the input (a pre-activation residual): x + GroupNorm(groups, C)(x).

Exercises: statistics over (channel group, H, W), affine per channel, then a residual add.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, groups, height, width = 2, 9, 3, 7, 5
else:
    batch, channels, groups, height, width = 32, 192, 24, 64, 64


class Model(nn.Module):
    """x + group_norm(x)."""

    def __init__(self, groups: int, channels: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.3, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [groups, channels]
