"""Inclusive prefix sum along the middle dim of a 3-D tensor: torch.cumsum(x, dim=1).

Exercises: a scan over a strided (non-contiguous) dim.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (3, 45, 7)
else:
    shape = (64, 2048, 512)


class Model(nn.Module):
    """cumsum over dim 1."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
