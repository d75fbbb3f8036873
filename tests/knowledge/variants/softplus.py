"""Reworded task: smooth rectifier softplus through an nn.Softplus submodule."""

import torch
import torch.nn as nn

batch, width = 64, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.smooth_relu = nn.Softplus()

    def forward(self, x):
        return self.smooth_relu(x)


def get_inputs():
    return [torch.randn(batch, width)]


def get_init_inputs():
    return []
