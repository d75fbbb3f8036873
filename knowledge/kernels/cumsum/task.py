"""Inclusive prefix sum along dim 1 of a (batch, length) float32 tensor: y[i, j] = sum_{k<=j} x[i, k].

A scan: every output depends on all earlier elements of its row. With AKG_TASK_SCALE=small the
row length is not a multiple of any power-of-two block, so the scan's block carry and tail are
both exercised.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Cumulative sum along dimension ``dim``."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return torch.cumsum(x, dim=self.dim): same shape as x."""
        return torch.cumsum(x, dim=self.dim)


if SCALE == "small":
    batch_size, length = 4, 301
else:
    batch_size, length = 128, 4000
scan_dim = 1


def get_inputs():
    x = torch.randn(batch_size, length)
    return [x]


def get_init_inputs():
    return [scan_dim]
