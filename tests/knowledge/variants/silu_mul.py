"""Reworded task: GLU with a swish gate; halves by slicing, swish written as a * sigmoid(a)."""

import torch
import torch.nn as nn

tokens, ffn = 2048, 11008


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, projected):
        half = projected.shape[-1] // 2
        a = projected[..., :half]
        b = projected[..., half:]
        return a * torch.sigmoid(a) * b


def get_inputs():
    return [torch.randn(tokens, 2 * ffn)]


def get_init_inputs():
    return []
