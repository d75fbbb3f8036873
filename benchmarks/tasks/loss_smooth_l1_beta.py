"""Smooth L1 loss with beta = 0.5, averaged: quadratic below beta, linear above.

Exercises: a where on |diff| < beta inside a mean reduction.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    shape = (13, 37)
else:
    shape = (16384, 4096)


class Model(nn.Module):
    """F.smooth_l1_loss(pred, target, beta)."""

    def __init__(self, beta: float):
        super().__init__()
        self.beta = beta

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.smooth_l1_loss(pred, target, beta=self.beta)


def get_inputs():
    return [torch.randn(*shape), torch.randn(*shape)]


def get_init_inputs():
    return [0.5]
