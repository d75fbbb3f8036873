"""Batch norm in training mode on NCHW: statistics over (N, H, W) of the batch itself.

Exercises: a reduction over dims (0, 2, 3) keeping the channel; the running-stat update reaches
no output (a lowering may drop it).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, channels, height, width = 3, 6, 9, 11
else:
    batch, channels, height, width = 32, 64, 112, 112


class Model(nn.Module):
    """nn.BatchNorm2d in its default (training) mode."""

    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 1.5 + 0.3]


def get_init_inputs():
    return [channels]
