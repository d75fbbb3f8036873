"""Reworded task: Swish written as the input times its own sigmoid."""

import torch
import torch.nn as nn

batch, channels = 16, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(batch, channels)]


def get_init_inputs():
    return []
