"""Reworded task: a dense layer without bias applied to a single column vector (torch.mm)."""

import torch
import torch.nn as nn

n_rows, n_cols = 4096, 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, matrix, vector):
        return torch.mm(matrix, vector)


def get_inputs():
    return [torch.rand(n_rows, n_cols), torch.rand(n_cols, 1)]


def get_init_inputs():
    return []
