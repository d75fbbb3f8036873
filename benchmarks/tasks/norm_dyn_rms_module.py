"""nn.RMSNorm over the last dim of tokens whose count changes between calls.

Exercises: dynamic shapes (several batch and sequence lengths), the RMSNorm module.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    dim, lead = 57, [(2, 5), (1, 1), (3, 11)]
else:
    dim, lead = 4096, [(8, 1024), (1, 1), (3, 2047)]


class Model(nn.Module):
    """nn.RMSNorm(dim, eps=1e-6) with a non-trivial weight."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.RMSNorm(dim, eps=1e-6)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(*lead[0], dim)]


def get_inputs_dyn_list():
    return [[torch.randn(*shape, dim)] for shape in lead]


def get_init_inputs():
    return [dim]
