"""nn.Linear + ReLU on a batch whose row count changes between calls.

Exercises: dynamic M (including M = 1) with fixed K and N.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    d_in, d_out, row_counts = 26, 19, (11, 1, 34)
else:
    d_in, d_out, row_counts = 4096, 4096, (4096, 1, 777)


class Model(nn.Module):
    """relu(Linear(x))."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.fc(x))


def get_inputs():
    return [torch.randn(row_counts[0], d_in)]


def get_inputs_dyn_list():
    return [[torch.randn(r, d_in)] for r in row_counts]


def get_init_inputs():
    return [d_in, d_out]
