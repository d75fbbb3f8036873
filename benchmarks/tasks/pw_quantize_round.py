"""Fake quantisation to a 1/4 grid plus a sign term: floor(x * 4 + 0.5) / 4 + 0.1 * sign(x).

Exercises: rounding ops (floor), sign, a divide by a constant.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (6, 55)
else:
    shape = (4096, 12288)


class Model(nn.Module):
    """Round to the nearest quarter, nudge away from zero."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.floor(x * 4.0 + 0.5) / 4.0 + 0.1 * torch.sign(x)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
