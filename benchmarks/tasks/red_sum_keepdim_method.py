"""Row sums kept as a column, then each element's share: x / (x.sum(dim=1, keepdim=True) + 1).

Exercises: method style x.sum(dim, keepdim=True), the result broadcast back over the row.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (3, 47, 17)
else:
    shape = (64, 1024, 1024)


class Model(nn.Module):
    """Normalise by the (shifted) sum over dim 1 of a non-negative tensor."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / (x.sum(dim=1, keepdim=True) + 1.0)


def get_inputs():
    return [torch.rand(*shape)]


def get_init_inputs():
    return []
