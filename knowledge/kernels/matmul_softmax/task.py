"""Linear layer followed by a softmax over the feature dimension."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, in_features, out_features = 7, 29, 19
else:
    batch_size, in_features, out_features = 1024, 4096, 4096


class Model(nn.Module):
    """y = softmax(x @ W^T + b, dim=1)."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear(x)
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
