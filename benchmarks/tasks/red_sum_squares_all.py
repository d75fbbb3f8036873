"""Sum of squares of every element (a 0-d result): (x * x).sum().

Exercises: a full reduction of a 3-D tensor to a scalar.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (5, 7, 31)
else:
    shape = (64, 1024, 1024)


class Model(nn.Module):
    """Squared Euclidean norm of the whole tensor."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x * x).sum()


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
