"""Triplet margin loss on embeddings (margin 0.5, p = 2), averaged over the batch.

Exercises: two row-wise distance reductions (with torch's eps in the difference), a hinge, a mean.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, dim = 12, 35
else:
    batch, dim = 16384, 2048


class Model(nn.Module):
    """nn.TripletMarginLoss(margin, p=2)."""

    def __init__(self, margin: float):
        super().__init__()
        self.loss = nn.TripletMarginLoss(margin=margin, p=2.0)

    def forward(self, anchor, positive, negative):
        return self.loss(anchor, positive, negative)


def get_inputs():
    return [torch.randn(batch, dim), torch.randn(batch, dim), torch.randn(batch, dim)]


def get_init_inputs():
    return [0.5]
