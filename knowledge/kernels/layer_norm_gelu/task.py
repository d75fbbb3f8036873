"""LayerNorm over the hidden dimension followed by the exact (erf) GELU."""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, hidden_size = 5, 257
else:
    batch_size, hidden_size = 4096, 4096


class Model(nn.Module):
    """y = gelu(layer_norm(x)) with a learnable affine LayerNorm (eps 1e-5)."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm(x)
        return F.gelu(x)


def get_inputs():
    return [torch.randn(batch_size, hidden_size)]


def get_init_inputs():
    return [hidden_size]
