"""Hard activations composed: hardtanh(hardswish(x) + hardsigmoid(x), -2, 2).

Exercises: the piecewise-linear family (clamps and a multiply), nn modules.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (2, 3, 19, 23)
else:
    shape = (32, 32, 224, 224)


class Model(nn.Module):
    """nn.Hardswish + nn.Hardsigmoid, clipped by nn.Hardtanh."""

    def __init__(self, low: float, high: float):
        super().__init__()
        self.swish = nn.Hardswish()
        self.sigmoid = nn.Hardsigmoid()
        self.clip = nn.Hardtanh(low, high)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.clip(self.swish(x) + self.sigmoid(x))


def get_inputs():
    return [torch.randn(*shape) * 3.0]


def get_init_inputs():
    return [-2.0, 2.0]
