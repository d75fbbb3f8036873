"""Reworded task: position of the smallest distance along axis 1 via the tensor method .argmin."""

import torch
import torch.nn as nn

batch, n, m = 32, 64, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, distances):
        return distances.argmin(dim=1)


def get_inputs():
    return [torch.randn(batch, n, m)]


def get_init_inputs():
    return []
