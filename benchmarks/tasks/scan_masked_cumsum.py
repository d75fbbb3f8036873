"""Prefix sum of the kept elements only: cumsum(where(mask, x, 0), dim=1), mask a bool input.

Exercises: a masked prologue (bool tensor) before a scan over dim 1 of a 2-D tensor.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 9, 83
else:
    rows, cols = 16384, 4096


class Model(nn.Module):
    """Running sum of x where mask is true."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(torch.where(mask, x, torch.zeros_like(x)), dim=1)


def get_inputs():
    return [torch.randn(rows, cols), torch.rand(rows, cols) > 0.4]


def get_init_inputs():
    return []
