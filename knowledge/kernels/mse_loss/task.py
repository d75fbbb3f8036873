"""Mean squared error between two (batch, dim) float32 tensors: a 0-dim scalar mean((a - b) ** 2).

An elementwise difference and square feeding one full reduction over every element.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Mean squared error loss with mean reduction."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim mean of the squared differences."""
        return torch.mean((predictions - targets) ** 2)


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
