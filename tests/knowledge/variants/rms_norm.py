"""Reworded task: RMS normalisation across channels written with rsqrt of the mean square."""

import torch
import torch.nn as nn

batch, channels, height, width = 8, 32, 128, 128


class Model(nn.Module):
    def __init__(self, channels, eps=1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + self.eps)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
