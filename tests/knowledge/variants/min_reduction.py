"""Reworded task: smallest value along the last axis taken from the values of x.min(dim)."""

import torch
import torch.nn as nn

batch, n, m = 16, 128, 1024


class Model(nn.Module):
    def __init__(self, axis):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        smallest, _ = x.min(dim=self.axis)
        return smallest


def get_inputs():
    return [torch.randn(batch, n, m)]


def get_init_inputs():
    return [2]
