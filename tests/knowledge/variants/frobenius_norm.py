"""Reworded task: divide a whole tensor by torch.linalg.norm of all its entries."""

import torch
import torch.nn as nn

batch, channels, height, width = 8, 32, 128, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, t):
        return t / torch.linalg.norm(t.flatten())


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return []
