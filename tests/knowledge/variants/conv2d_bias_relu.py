"""Reworded task: convolution with bias, then negative values zeroed with clamp(min=0)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch, cin, cout, hw = 32, 32, 64, 64


class Model(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cout, cin, 3, 3) * 0.1)
        self.bias = nn.Parameter(torch.randn(cout))

    def forward(self, x):
        y = F.conv2d(x, self.weight, self.bias)
        return y.clamp(min=0)


def get_inputs():
    return [torch.randn(batch, cin, hw, hw)]


def get_init_inputs():
    return [cin, cout]
