"""A feed-forward up-projection: gelu(x @ W^T + b) with nn.Linear.

Exercises: a transposed weight operand, bias and exact GELU fused after the GEMM.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    tokens, d_in, d_out = 21, 17, 35
else:
    tokens, d_in, d_out = 8192, 2048, 8192


class Model(nn.Module):
    """nn.Linear then F.gelu."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.proj(x))


def get_inputs():
    return [torch.randn(tokens, d_in)]


def get_init_inputs():
    return [d_in, d_out]
