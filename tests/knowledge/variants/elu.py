"""Reworded task: exponential linear unit through an nn.ELU submodule with a configurable alpha."""

import torch
import torch.nn as nn

batch, width = 32, 8192


class Model(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.act = nn.ELU(alpha=alpha)

    def forward(self, x):
        return self.act(x)


def get_inputs():
    return [torch.randn(batch, width)]


def get_init_inputs():
    return [0.5]
