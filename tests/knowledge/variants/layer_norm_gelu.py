"""Reworded task: F.layer_norm with explicit gamma/beta, then nn.GELU() as a module."""

import torch
import torch.nn as nn
import torch.nn.functional as F

seq, d_model = 8192, 1024


class Model(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))
        self.act = nn.GELU()

    def forward(self, h):
        h = F.layer_norm(h, (h.shape[-1],), self.gamma, self.beta, eps=1e-5)
        return self.act(h)


def get_inputs():
    return [torch.randn(seq, d_model)]


def get_init_inputs():
    return [d_model]
