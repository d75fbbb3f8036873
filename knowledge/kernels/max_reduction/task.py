"""Max reduction over dim 1 of a (batch, dim1, dim2) float32 tensor.

y = max(x, dim=1).values, shape (batch, dim2).

The reduced dimension is the middle one (stride dim2), so consecutive outputs read consecutive
addresses: a kernel can keep loads coalesced by vectorising over dim2 and looping over dim1.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Max reduction along dimension ``dim`` (1 here)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the maximum values over self.dim (the dimension is removed)."""
        return torch.max(x, dim=self.dim)[0]


if SCALE == "small":
    batch_size, dim1, dim2 = 3, 37, 53
else:
    batch_size, dim1, dim2 = 16, 256, 256
reduce_dim = 1


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
