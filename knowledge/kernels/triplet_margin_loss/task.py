"""Triplet margin loss of (batch, dim) float32 anchor, positive and negative embeddings.

nn.TripletMarginLoss(margin): per row, d(a, p) = ||a - p + eps||_2 with eps = 1e-6 (the pairwise
distance convention), loss_i = max(d(a_i, p_i) - d(a_i, n_i) + margin, 0); the result is the mean
over rows as a 0-dim scalar.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """nn.TripletMarginLoss with p = 2 and mean reduction."""

    def __init__(self, margin: float = 1.0):
        super().__init__()
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim mean triplet margin loss."""
        return self.loss_fn(anchor, positive, negative)


if SCALE == "small":
    batch_size, dim = 5, 257
else:
    batch_size, dim = 128, 4096
margin = 1.0


def get_inputs():
    anchor = torch.randn(batch_size, dim)
    positive = torch.randn(batch_size, dim)
    negative = torch.randn(batch_size, dim)
    return [anchor, positive, negative]


def get_init_inputs():
    return [margin]
