"""L1 normalisation of each row of a (batch, dim) float32 tensor: y = x / sum(|x|, dim=1, keepdim=True).

A row-wise reduction of absolute values followed by an elementwise division. With
AKG_TASK_SCALE=small the row length is not a multiple of any power-of-two block.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Divides every row by its L1 norm."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return x / sum(|x|) over dim 1: same shape as x."""
        return x / torch.sum(torch.abs(x), dim=1, keepdim=True)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
