"""Sum of the exact (erf) GELU of one tensor and the tanh-approximated GELU of another.

Exercises: both GELU forms (erf and tanh) in one kernel, two inputs of the same shape.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 31, 47
else:
    rows, cols = 4096, 5120


class Model(nn.Module):
    """gelu(a) + gelu_tanh(b)."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.gelu(a) + F.gelu(b, approximate="tanh")


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
