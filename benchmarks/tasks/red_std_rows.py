"""Standard deviation of each row with Bessel's correction: x.std(dim=-1).

Exercises: two dependent reductions (mean, then squared deviations) and a sqrt epilogue.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (17, 65)
else:
    shape = (16384, 4096)


class Model(nn.Module):
    """Unbiased row standard deviation."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.std(dim=-1)


def get_inputs():
    return [torch.randn(*shape) * 2 + 1]


def get_init_inputs():
    return []
