"""Index of the best channel after a per-channel weighting: argmax(x * w[c], dim=1) on [B, C, L].

Exercises: argmax with a broadcast prologue, over a middle dim; int64 output.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, length = 3, 21, 19
else:
    batch, channels, length = 64, 256, 4096


class Model(nn.Module):
    """Weighted argmax over channels."""

    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(channels, 1) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x * self.weight, dim=1)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [channels]
