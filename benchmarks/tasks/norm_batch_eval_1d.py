"""Batch norm in inference mode on [N, C, L]: (x - running_mean) / sqrt(running_var + eps) * w + b.

Exercises: F.batch_norm with training=False (a pure per-channel pointwise map) and random
running statistics held as buffers.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, length = 4, 9, 31
else:
    batch, channels, length = 32, 256, 4096


class Model(nn.Module):
    """Inference-time batch norm with stored statistics."""

    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(channels) + 0.5)
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)
        self.register_buffer("running_mean", torch.randn(channels) * 0.2)
        self.register_buffer("running_var", torch.rand(channels) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            training=False, eps=1e-5)


def get_inputs():
    return [torch.randn(batch, channels, length)]


def get_init_inputs():
    return [channels]
