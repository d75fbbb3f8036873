"""Reworded task: margin loss for +-1 labels written as relu(1 - y * score) averaged."""

import torch
import torch.nn as nn

batch, dim = 512, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, score, y):
        return torch.relu(1.0 - y * score).mean()


def get_inputs():
    score = torch.randn(batch, dim)
    y = torch.where(torch.rand(batch, dim) < 0.5, -1.0, 1.0)
    return [score, y]


def get_init_inputs():
    return []
