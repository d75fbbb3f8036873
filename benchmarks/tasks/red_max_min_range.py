"""Range of each row: torch.max(x, dim=-1).values - x.amin(dim=-1).

Exercises: two reductions (max and min) of the same row, max written as the values of torch.max.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (4, 9, 77)
else:
    shape = (32, 2048, 1024)


class Model(nn.Module):
    """max - min over the last dim."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=-1).values - x.amin(dim=-1)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
