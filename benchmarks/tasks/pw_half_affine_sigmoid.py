"""float16 in and out, float32 math: sigmoid(x.float() * 0.125 + bias).half().

Exercises: explicit casts (half -> float -> half), a float32 parameter broadcast over the last dim.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 13, 45
else:
    rows, cols = 16384, 4096


class Model(nn.Module):
    """A scaled, shifted sigmoid computed in float32 on float16 data."""

    def __init__(self, cols: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(cols) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.float() * 0.125 + self.bias
        return torch.sigmoid(y).half()


def get_inputs():
    return [torch.randn(rows, cols, dtype=torch.float16) * 4]


def get_init_inputs():
    return [cols]
