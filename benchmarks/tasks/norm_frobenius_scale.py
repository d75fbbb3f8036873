"""Divide a tensor by its Frobenius norm: x / torch.norm(x, p="fro").

Exercises: a full reduction to a scalar that then scales every element (two passes over x).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (3, 17, 25)
else:
    shape = (32, 1024, 2048)


class Model(nn.Module):
    """Scale to unit Frobenius norm."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p="fro")


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
