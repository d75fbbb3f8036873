"""Huber loss (delta 1.5) summed per sample: nn.HuberLoss(reduction="none")(p, t).sum(dim=1).

Exercises: a loss module without reduction, then a per-row sum (a [B] result, not a scalar).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, features = 19, 43
else:
    batch, features = 8192, 8192


class Model(nn.Module):
    """Per-sample Huber loss."""

    def __init__(self, delta: float):
        super().__init__()
        self.loss = nn.HuberLoss(reduction="none", delta=delta)

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.loss(pred, target).sum(dim=1)


def get_inputs():
    return [torch.randn(batch, features) * 2, torch.randn(batch, features)]


def get_init_inputs():
    return [1.5]
