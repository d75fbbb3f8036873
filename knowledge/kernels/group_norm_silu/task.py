"""GroupNorm on an NCHW tensor followed by SiLU (x * sigmoid(x))."""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, num_channels, num_groups, height, width = 2, 6, 3, 5, 7
else:
    batch_size, num_channels, num_groups, height, width = 16, 64, 8, 128, 128


class Model(nn.Module):
    """y = silu(group_norm(x)) with learnable per-channel affine (eps 1e-5)."""

    def __init__(self, num_groups: int, num_channels: int):
        super().__init__()
        self.group_norm = nn.GroupNorm(num_groups, num_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.group_norm(x)
        return F.silu(x)


def get_inputs():
    return [torch.randn(batch_size, num_channels, height, width)]


def get_init_inputs():
    return [num_groups, num_channels]
