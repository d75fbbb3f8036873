"""A dense layer written out on a 3-D batch: x W^T + b, then a rectifier as max(., 0)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_in: int = 512, d_out: int = 1024):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * 0.02)
        self.bias = nn.Parameter(torch.zeros(d_out))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return torch.relu(tokens @ self.weight.t() + self.bias)


def get_inputs():
    return [torch.randn(4, 256, 512)]


def get_init_inputs():
    return []
