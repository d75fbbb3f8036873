"""Mean over the first and last dims of a 3-D tensor: x.mean(dim=(0, 2)), one value per middle index.

Exercises: a reduction over non-adjacent dims that keeps the middle one.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (9, 14, 23)
else:
    shape = (256, 512, 384)


class Model(nn.Module):
    """Per-feature mean over batch and positions."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=(0, 2))


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
