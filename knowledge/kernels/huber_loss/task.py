"""Smooth L1 (Huber, beta = 1) loss between two (batch, dim) float32 tensors, mean-reduced to a scalar.

Per element d = a - b: 0.5 * d ** 2 where |d| < 1, else |d| - 0.5; then the mean of all elements
as a 0-dim tensor.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """F.smooth_l1_loss with its defaults (beta = 1, mean reduction)."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim smooth L1 loss."""
        return F.smooth_l1_loss(predictions, targets)


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 128, 4096


def get_inputs():
    predictions = torch.randn(batch_size, dim)
    targets = torch.randn(batch_size, dim)
    return [predictions, targets]


def get_init_inputs():
    return []
