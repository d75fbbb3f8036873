"""Kullback-Leibler divergence between two row-stochastic (batch, dim) float32 tensors.

F.kl_div(log(predictions), targets, reduction="batchmean") = sum(t * (log t - log p)) / batch,
a 0-dim scalar. Both inputs are softmaxes of random rows, so every entry is positive.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """KL divergence of targets from predictions, averaged over the batch."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Return the 0-dim batch-mean KL divergence KL(targets || predictions)."""
        return F.kl_div(torch.log(predictions), targets, reduction="batchmean")


if SCALE == "small":
    batch_size, dim = 4, 257
else:
    batch_size, dim = 128, 4096


def get_inputs():
    predictions = torch.randn(batch_size, dim).softmax(dim=-1)
    targets = torch.randn(batch_size, dim).softmax(dim=-1)
    return [predictions, targets]


def get_init_inputs():
    return []
