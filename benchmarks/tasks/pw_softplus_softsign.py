"""Softplus with beta and threshold minus softsign: softplus(x, beta=2, threshold=8) - softsign(x).

Exercises: softplus's linear region above threshold / beta, a division by 1 + |x|.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (9, 41)
else:
    shape = (2048, 16384)


class Model(nn.Module):
    """softplus(x) - softsign(x)."""

    def __init__(self, beta: float, threshold: float):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(x, beta=self.beta, threshold=self.threshold) - F.softsign(x)


def get_inputs():
    # scaled so that some elements cross the threshold (x * beta > 8)
    return [torch.randn(*shape) * 3.0]


def get_init_inputs():
    return [2.0, 8.0]
