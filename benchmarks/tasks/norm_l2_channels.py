"""L2 normalisation across the channels of each pixel: F.normalize(x, p=2, dim=1) on NCHW.

Exercises: a sqrt of a sum of squares over a middle dim, clamped by eps, then a divide.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (2, 11, 6, 9)
else:
    shape = (32, 256, 64, 64)


class Model(nn.Module):
    """Per-pixel unit-length channel vectors."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, p=2.0, dim=1)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
