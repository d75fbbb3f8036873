"""Softmax across the channels of an NCHW tensor (dim 1, not the contiguous one).

Exercises: a max-then-sum reduction over a strided middle dim, with exp prologue and divide epilogue.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (2, 19, 7, 9)
else:
    shape = (16, 128, 96, 96)


class Model(nn.Module):
    """nn.Softmax over dim 1."""

    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.softmax(x)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
