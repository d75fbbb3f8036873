"""Hinge loss with +-1 labels, written out: clamp(1 - pred * label, min=0).mean().

Exercises: a hand-written loss (clamp with one bound) and a full mean.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, outputs = 27, 11
else:
    batch, outputs = 32768, 2048


class Model(nn.Module):
    """Mean hinge loss."""

    def forward(self, pred: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        return torch.clamp(1.0 - pred * label, min=0.0).mean()


def get_inputs():
    label = torch.randint(0, 2, (batch, outputs)).float() * 2 - 1
    return [torch.randn(batch, outputs), label]


def get_init_inputs():
    return []
