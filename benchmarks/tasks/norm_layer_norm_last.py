"""Layer norm over the last dim of a [batch, seq, dim] activation, with affine weight and bias.

Exercises: nn.LayerNorm on one trailing dim (mean, variance, rsqrt, affine epilogue).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, seq, dim = 2, 13, 97
else:
    batch, seq, dim = 16, 2048, 2048


class Model(nn.Module):
    """nn.LayerNorm(dim)."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        with torch.no_grad():  # non-trivial affine parameters, so the epilogue is checked
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.2, 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, seq, dim) * 2 + 0.5]


def get_init_inputs():
    return [dim]
