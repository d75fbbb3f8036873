"""Mask positions with a broadcast boolean mask, then scale: x.masked_fill(mask, -1.0) * 2.

Exercises: a bool input of shape [B, 1, L] broadcast over the head dim, masked_fill.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, heads, length = 3, 5, 27
else:
    batch, heads, length = 64, 32, 16384


class Model(nn.Module):
    """Fill masked positions with -1 and double everything."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x.masked_fill(mask, -1.0) * 2.0


def get_inputs():
    return [torch.randn(batch, heads, length), torch.rand(batch, 1, length) < 0.3]


def get_init_inputs():
    return []
