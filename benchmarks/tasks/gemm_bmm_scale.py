"""Batched matrix product scaled by a constant: torch.bmm(a, b) * alpha.

Exercises: a batch dim on both operands, a scalar epilogue.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, m, k, n = 3, 13, 22, 9
else:
    batch, m, k, n = 64, 1024, 512, 1024


class Model(nn.Module):
    """alpha * (a @ b) per batch."""

    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b) * self.alpha


def get_inputs():
    return [torch.randn(batch, m, k), torch.randn(batch, k, n)]


def get_init_inputs():
    return [0.125]
