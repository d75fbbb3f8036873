"""Softmax over dim 1 of a (batch, dim) float32 tensor: y[i, j] = exp(x[i, j]) / sum_k exp(x[i, k]).

A row-wise reduction (max and sum of exponentials) followed by an elementwise rescale. With
AKG_TASK_SCALE=small the row length is not a multiple of any power-of-two block.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Applies softmax along the feature dimension (dim=1)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return softmax(x, dim=1): same shape as x, each row sums to 1."""
        return torch.softmax(x, dim=1)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
