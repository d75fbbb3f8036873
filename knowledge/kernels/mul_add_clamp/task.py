"""Elementwise chain: per-feature scale and bias, then a clamp to [min_value, max_value]."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, features = 4, 257
else:
    batch_size, features = 4096, 8192
min_value = -1.0
max_value = 1.0


class Model(nn.Module):
    """y = clamp(x * scale + bias, min_value, max_value), learnable per-feature scale and bias."""

    def __init__(self, features: int, min_value: float, max_value: float):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))
        self.min_value = min_value
        self.max_value = max_value

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * self.scale + self.bias
        return torch.clamp(x, min=self.min_value, max=self.max_value)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, min_value, max_value]
