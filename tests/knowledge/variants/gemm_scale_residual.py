"""Reworded task: projection y = x W^T + b, then y + alpha * y (a scaled copy added back)."""

import torch
import torch.nn as nn

batch, n_in, n_out = 256, 8192, 2048


class Model(nn.Module):
    def __init__(self, n_in, n_out, alpha):
        super().__init__()
        self.proj = nn.Linear(n_in, n_out)
        self.alpha = alpha

    def forward(self, inp):
        y = self.proj(inp)
        return y + self.alpha * y


def get_inputs():
    return [torch.randn(batch, n_in)]


def get_init_inputs():
    return [n_in, n_out, 0.25]
