"""Select by a threshold: where(x > t, x, 0.1 * y), t a constructor argument.

Exercises: a comparison feeding torch.where, two inputs and a constant.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (3, 37, 29)
else:
    shape = (16, 1024, 2048)


class Model(nn.Module):
    """Keep x above the threshold, else a damped y."""

    def __init__(self, threshold: float):
        super().__init__()
        self.threshold = threshold

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.where(x > self.threshold, x, y * 0.1)


def get_inputs():
    return [torch.randn(*shape), torch.randn(*shape)]


def get_init_inputs():
    return [0.25]
