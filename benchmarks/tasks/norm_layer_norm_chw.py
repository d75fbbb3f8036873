"""Layer norm over the three trailing dims (C, H, W) of an NCHW tensor.

Exercises: a normalised shape of rank 3, so one row spans C * H * W elements; no affine params.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 3, 5, 9, 7
else:
    batch, channels, height, width = 32, 64, 64, 64


class Model(nn.Module):
    """nn.LayerNorm([C, H, W], elementwise_affine=False)."""

    def __init__(self, channels: int, height: int, width: int):
        super().__init__()
        self.norm = nn.LayerNorm([channels, height, width], elementwise_affine=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels, height, width]
