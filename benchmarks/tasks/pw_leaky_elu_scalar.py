"""Leaky ReLU, then ELU, then a scalar gain: 1.5 * elu(leaky_relu(x, 0.05), alpha=0.8).

Exercises: functional activations with keyword constants, a Python scalar multiply.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 37, 53
else:
    rows, cols = 6144, 6144


class Model(nn.Module):
    """Two piecewise activations in a row and a constant gain."""

    def __init__(self, slope: float, alpha: float, gain: float):
        super().__init__()
        self.slope, self.alpha, self.gain = slope, alpha, gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.leaky_relu(x, negative_slope=self.slope)
        return self.gain * F.elu(y, alpha=self.alpha)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [0.05, 0.8, 1.5]
