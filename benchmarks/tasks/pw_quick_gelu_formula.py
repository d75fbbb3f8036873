"""Quick GELU written out by hand: x * sigmoid(1.702 * x).

Exercises: a hand-written formula (a constant inside the sigmoid), 4-D input.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (3, 5, 13, 17)
else:
    shape = (8, 64, 256, 256)


class Model(nn.Module):
    """The sigmoid approximation of GELU used by some vision transformers."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(1.702 * x)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
