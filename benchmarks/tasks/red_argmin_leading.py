"""Index of the minimum along the leading dim of a 2-D tensor: x.argmin(dim=0).

Exercises: argmin over the outermost (largest-stride) dim; int64 output.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (41, 15)
else:
    shape = (8192, 8192)


class Model(nn.Module):
    """Column-wise argmin."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.argmin(dim=0)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
