"""Bias add then tanh-GELU on a token matrix whose row count changes: gelu(x + b).

Exercises: dynamic shapes (get_inputs_dyn_list: several row counts, one hidden size).
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    hidden, row_counts = 45, (7, 1, 30)
else:
    hidden, row_counts = 4096, (8192, 1, 3001)


class Model(nn.Module):
    """gelu_tanh(x + bias), bias per hidden unit."""

    def __init__(self, hidden: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(hidden) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x + self.bias, approximate="tanh")


def get_inputs():
    return [torch.randn(row_counts[0], hidden)]


def get_inputs_dyn_list():
    return [[torch.randn(r, hidden)] for r in row_counts]


def get_init_inputs():
    return [hidden]
