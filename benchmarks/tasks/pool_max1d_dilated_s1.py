"""1-D max pooling, kernel 5 at stride 1, dilation 2, padding 2.

Exercises: a window at stride 1 along the last dim, so the tiles away from a row's ends take the
interior version of the window loop (no bounds masks) and the tiles at its ends the masked one.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, length = 2, 3, 1200
else:
    batch, channels, length = 32, 128, 16384


class Model(nn.Module):
    """nn.MaxPool1d(5, stride=1, padding=2, dilation=2)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(5, stride=1, padding=2, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return []
