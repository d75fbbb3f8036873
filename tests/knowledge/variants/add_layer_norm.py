"""Reworded task: residual stream hidden + sublayer output, normalised with mean/var by hand."""

import torch
import torch.nn as nn

tokens, width = 2048, 2048


class Model(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width))
        self.eps = 1e-5

    def forward(self, hidden, sublayer_out):
        s = hidden + sublayer_out
        mu = s.mean(dim=-1, keepdim=True)
        var = ((s - mu) ** 2).mean(dim=-1, keepdim=True)
        return (s - mu) / torch.sqrt(var + self.eps) * self.weight + self.bias


def get_inputs():
    return [torch.randn(tokens, width), torch.randn(tokens, width)]


def get_init_inputs():
    return [width]
