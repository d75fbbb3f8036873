"""Exclusive prefix sum: out[..., 0] = 0, out[..., i] = sum of x[..., :i], built with F.pad.

Exercises: a scan whose result is shifted by one (slice then zero padding on the left).
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 17, 39
else:
    rows, cols = 32768, 2048


class Model(nn.Module):
    """Exclusive cumsum over the last dim."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inclusive = torch.cumsum(x, dim=-1)
        return F.pad(inclusive[..., :-1], (1, 0))


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
