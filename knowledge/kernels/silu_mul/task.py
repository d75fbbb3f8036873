"""SwiGLU activation: the input's first half through SiLU, times its second half."""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, hidden_size = 4, 133
else:
    batch_size, hidden_size = 4096, 8192


class Model(nn.Module):
    """y = silu(x[:, :H]) * x[:, H:] for x of shape (batch, 2H)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = x.chunk(2, dim=-1)
        return F.silu(gate) * up


def get_inputs():
    return [torch.randn(batch_size, 2 * hidden_size)]


def get_init_inputs():
    return []
