"""Test task: y = relu(x * w - 1e4), all zeros for any normal draw (a constant reference output)."""

import torch
import torch.nn as nn

M, N = 64, 256


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * self.weight - 1e4)


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return [N]
