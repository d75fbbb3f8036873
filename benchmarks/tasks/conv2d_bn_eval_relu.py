"""Convolution, inference-mode batch norm, ReLU: the classic folded conv-bn-relu block.

Exercises: a conv core whose tail is a per-channel affine from running statistics, then ReLU.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, c_in, c_out, height, width = 2, 3, 6, 9, 10
else:
    batch, c_in, c_out, height, width = 32, 64, 128, 56, 56


class Model(nn.Module):
    """relu(bn_eval(conv(x)))."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.2)
            self.bn.running_var.uniform_(0.5, 1.5)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.2, 0.2)
        self.bn.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, c_in, height, width)]


def get_init_inputs():
    return [c_in, c_out]
