"""3-D average pooling, kernel 3, stride 2, padding 1 on [N, C, D, H, W].

Exercises: a 27-tap window with padding counted in the divisor.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (1, 4, 5, 9, 7)
else:
    shape = (4, 32, 64, 96, 96)


class Model(nn.Module):
    """nn.AvgPool3d(3, stride=2, padding=1)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
