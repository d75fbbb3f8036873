"""Row softmax whose rows and row length both change between calls: torch.softmax(x, dim=-1).

Exercises: dynamic shapes in both dims, including rows longer than one tile.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shapes = [(9, 33), (1, 129), (20, 7)]
else:
    shapes = [(4096, 4096), (1, 65536), (32768, 1000)]


class Model(nn.Module):
    """Softmax over the last dim."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(*shapes[0])]


def get_inputs_dyn_list():
    return [[torch.randn(*s)] for s in shapes]


def get_init_inputs():
    return []
