"""A gated activation: silu(x) * mish(g), with x and g of the same shape.

Exercises: SiLU and Mish (softplus inside tanh) in one chain, two inputs.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    tokens, hidden = 23, 61
else:
    tokens, hidden = 8192, 2816


class Model(nn.Module):
    """SiLU of the value times Mish of the gate."""

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return F.silu(x) * F.mish(g)


def get_inputs():
    return [torch.randn(tokens, hidden), torch.randn(tokens, hidden)]


def get_init_inputs():
    return []
