"""Reworded task: product of two square matrices written with the @ operator."""

import torch
import torch.nn as nn

size = 6144


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, left, right):
        product = left @ right
        return product


def get_inputs():
    return [torch.rand(size, size), torch.rand(size, size)]


def get_init_inputs():
    return []
