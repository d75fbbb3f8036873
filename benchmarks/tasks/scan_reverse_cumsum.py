"""Suffix sums (a reversed scan) written with flips: x.flip(-1).cumsum(-1).flip(-1).

Exercises: flip views around a scan; out[i] = sum of x[i:] along the last dim.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (5, 3, 61)
else:
    shape = (32, 128, 8192)


class Model(nn.Module):
    """Reverse cumulative sum over the last dim."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.flip(-1).cumsum(-1).flip(-1)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
