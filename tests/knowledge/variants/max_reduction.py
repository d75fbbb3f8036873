"""Reworded task: largest value along the middle axis with torch.amax."""

import torch
import torch.nn as nn

batch, n, m = 8, 1024, 256


class Model(nn.Module):
    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return torch.amax(x, dim=self.axis)


def get_inputs():
    return [torch.randn(batch, n, m)]


def get_init_inputs():
    return [1]
