"""Reworded task: a stack of independent matrix products via torch.matmul on 3-D tensors."""

import torch
import torch.nn as nn

batch, rows, inner, cols = 64, 384, 256, 768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, lhs, rhs):
        return torch.matmul(lhs, rhs)


def get_inputs():
    return [torch.randn(batch, rows, inner), torch.randn(batch, inner, cols)]


def get_init_inputs():
    return []
