"""Test task with dynamic shapes: rowscale on two row counts; 37 rows leave a partial block."""

import torch
import torch.nn as nn

N = 256


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * self.weight)


def get_inputs():
    return [torch.randn(64, N)]


def get_inputs_dyn_list():
    return [[torch.randn(64, N)], [torch.randn(37, N)]]


def get_init_inputs():
    return [N]
