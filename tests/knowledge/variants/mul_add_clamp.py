"""Reworded task: a per-channel affine via torch.addcmul, saturated to [-2, 2] with F.hardtanh."""

import torch
import torch.nn as nn
import torch.nn.functional as F

rows, channels = 8192, 4096


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.gain = nn.Parameter(torch.rand(channels))
        self.offset = nn.Parameter(torch.rand(channels))

    def forward(self, x):
        y = torch.addcmul(self.offset, x, self.gain)
        return F.hardtanh(y, min_val=-2.0, max_val=2.0)


def get_inputs():
    return [torch.randn(rows, channels)]


def get_init_inputs():
    return [channels]
