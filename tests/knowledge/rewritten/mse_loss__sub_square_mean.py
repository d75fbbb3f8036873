"""Mean squared error written out on 3-D predictions: subtract, square, average every element."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, predicted: torch.Tensor, observed: torch.Tensor) -> torch.Tensor:
        return torch.square(predicted - observed).mean()


def get_inputs():
    return [torch.randn(8, 64, 512), torch.randn(8, 64, 512)]


def get_init_inputs():
    return []
