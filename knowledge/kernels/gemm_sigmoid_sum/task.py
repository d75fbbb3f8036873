"""Linear layer, sigmoid, then a sum over the feature dimension (keepdim)."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, input_size, hidden_size = 7, 29, 19
else:
    batch_size, input_size, hidden_size = 1024, 4096, 4096


class Model(nn.Module):
    """y[i] = sum_j sigmoid((x W^T + b)[i, j]), shape (batch, 1)."""

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear(x)
        x = torch.sigmoid(x)
        x = torch.sum(x, dim=1, keepdim=True)
        return x


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
