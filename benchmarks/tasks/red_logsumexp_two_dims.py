"""logsumexp over the two trailing dims of a 3-D tensor: one value per leading index.

Exercises: a reduction over a set of dims (1, 2) to a 1-D result.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (5, 13, 21)
else:
    shape = (512, 256, 512)


class Model(nn.Module):
    """torch.logsumexp(x, dim=(1, 2))."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.logsumexp(x, dim=(1, 2))


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
