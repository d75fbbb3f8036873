"""LogSoftmax over dim 1 of a (batch, dim) float32 tensor: y[i, j] = x[i, j] - log(sum_k exp(x[i, k])).

A row-wise log-sum-exp reduction (stabilised by the row maximum) followed by a subtraction. With
AKG_TASK_SCALE=small the row length is not a multiple of any power-of-two block.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Applies log-softmax along dimension ``dim`` (1 here)."""

    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return log_softmax(x, dim=self.dim): same shape as x."""
        return torch.log_softmax(x, dim=self.dim)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 16, 16384


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [1]
