"""Reworded task: the logistic function spelled out as 1 / (1 + exp(-z))."""

import torch
import torch.nn as nn

batch, features = 128, 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, z):
        return 1.0 / (1.0 + torch.exp(-z))


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return []
