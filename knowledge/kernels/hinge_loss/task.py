"""Hinge loss of (batch, dim) float32 scores against +-1 labels: mean(clamp(1 - pred * target, min=0)).

An elementwise margin, clamped at zero, feeding one full mean reduction to a 0-dim scalar.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Mean hinge loss."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim mean of max(0, 1 - predictions * targets)."""
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 128, 4096


def get_inputs():
    predictions = torch.randn(batch_size, dim)
    targets = torch.randint(0, 2, (batch_size, dim)).float() * 2 - 1
    return [predictions, targets]


def get_init_inputs():
    return []
