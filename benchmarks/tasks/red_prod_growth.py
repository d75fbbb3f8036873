"""Compound growth over the middle dim: prod(1 + r, dim=1) for small rates r.

Exercises: a product reduction with a prologue; rates stay small so the product stays near 1.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (6, 25, 11)
else:
    shape = (128, 512, 1024)


class Model(nn.Module):
    """torch.prod(1 + rates, dim=1)."""

    def forward(self, rates: torch.Tensor) -> torch.Tensor:
        return torch.prod(1.0 + rates, dim=1)


def get_inputs():
    return [torch.randn(*shape) * 0.01]


def get_init_inputs():
    return []
