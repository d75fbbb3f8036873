"""SELU followed by CELU, written as nn modules: celu(selu(x), alpha=0.6).

Exercises: exponential activations with their scale constants, 3-D input.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (5, 29, 19)
else:
    shape = (48, 768, 1024)


class Model(nn.Module):
    """nn.SELU then nn.CELU."""

    def __init__(self):
        super().__init__()
        self.selu = nn.SELU()
        self.celu = nn.CELU(alpha=0.6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.celu(self.selu(x))


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
