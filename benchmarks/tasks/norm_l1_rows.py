"""L1 normalisation of each row: x / sum(|x|, dim=1, keepdim=True).

Exercises: an abs prologue, a row sum, a divide epilogue over the full row.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    rows, cols = 23, 71
else:
    rows, cols = 8192, 8192


class Model(nn.Module):
    """Rows scaled to unit L1 norm."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / x.abs().sum(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
