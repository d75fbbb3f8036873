"""1-D average pooling, kernel 4, stride 3, padding 2, padding excluded from the divisor.

Exercises: count_include_pad=False, so edge windows divide by their in-range tap count.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, length = 2, 6, 31
else:
    batch, channels, length = 64, 128, 8192


class Model(nn.Module):
    """nn.AvgPool1d(4, stride=3, padding=2, count_include_pad=False)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(4, stride=3, padding=2, count_include_pad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return []
