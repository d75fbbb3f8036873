"""3-D max pooling over 2x2x2 cubes with stride 2 on [N, C, D, H, W].

Exercises: a 3-D window; odd sizes drop the last plane, row and column.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (2, 3, 7, 9, 5)
else:
    shape = (4, 16, 64, 128, 128)


class Model(nn.Module):
    """nn.MaxPool3d(2, 2)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool3d(kernel_size=2, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
