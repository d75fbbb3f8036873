"""Cosine distance between paired embeddings, averaged: (1 - cosine_similarity(a, b, dim=-1)).mean().

Exercises: three row reductions (a.b, |a|^2, |b|^2) combined in an epilogue, then a mean.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, dim = 10, 67
else:
    batch, dim = 32768, 1024


class Model(nn.Module):
    """Mean cosine distance."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (1.0 - F.cosine_similarity(a, b, dim=-1)).mean()


def get_inputs():
    return [torch.randn(batch, dim), torch.randn(batch, dim)]


def get_init_inputs():
    return []
