"""Mean squared error between predictions and targets: F.mse_loss(pred, target).

Exercises: a two-input prologue (difference, square) and a full mean to a 0-d result.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (7, 29, 3)
else:
    shape = (256, 1024, 256)


class Model(nn.Module):
    """Mean of (pred - target)^2."""

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(pred, target)


def get_inputs():
    return [torch.randn(*shape), torch.randn(*shape)]


def get_init_inputs():
    return []
