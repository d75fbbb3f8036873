"""Residual add of two inputs followed by LayerNorm over the hidden dimension."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, hidden_size = 5, 257
else:
    batch_size, hidden_size = 4096, 4096


class Model(nn.Module):
    """y = layer_norm(x + residual) with a learnable affine LayerNorm (eps 1e-5)."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.norm(x + residual)


def get_inputs():
    x = torch.randn(batch_size, hidden_size)
    residual = torch.randn(batch_size, hidden_size)
    return [x, residual]


def get_init_inputs():
    return [hidden_size]
