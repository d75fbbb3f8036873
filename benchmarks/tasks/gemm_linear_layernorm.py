"""Linear projection followed by layer norm over its output features.

Exercises: a GEMM whose tail is a row reduction (mean, variance) over N, then an affine epilogue.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    tokens, d_in, d_out = 19, 24, 41
else:
    tokens, d_in, d_out = 8192, 1024, 4096


class Model(nn.Module):
    """LayerNorm(Linear(x))."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out)
        self.norm = nn.LayerNorm(d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.proj(x))


def get_inputs():
    return [torch.randn(tokens, d_in)]


def get_init_inputs():
    return [d_in, d_out]
