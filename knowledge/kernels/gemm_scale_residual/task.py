"""Linear layer, scaled, plus its own unscaled output as residual: y = g * s + g, g = x W^T + b."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, in_features, out_features = 7, 29, 19
else:
    batch_size, in_features, out_features = 1024, 4096, 4096
scaling_factor = 0.5


class Model(nn.Module):
    """GEMM, a scaling, and a residual add of the GEMM output to the scaled value."""

    def __init__(self, in_features: int, out_features: int, scaling_factor: float):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.matmul(x)
        original_x = x.clone().detach()
        x = x * self.scaling_factor
        x = x + original_x
        return x


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
