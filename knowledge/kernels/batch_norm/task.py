"""Batch normalisation of a (batch, features, height, width) float32 tensor with batch statistics.

For each channel c, the mean and biased variance are taken over (batch, height, width); the
channel is normalised with eps = 1e-5, scaled by weight[c] and shifted by bias[c].

Formulation choice: training-mode nn.BatchNorm2d also updates running statistics, a buffer side
effect that would make two modules diverge. This task calls F.batch_norm with no running buffers
and training=True, which normalises with the batch statistics and has no side effect, so the
output is a pure function of the input and the parameters. weight and bias start near 1 and 0
(random perturbations, drawn in this order) so that the affine step is exercised.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """BatchNorm2d with batch statistics and an affine transform, without running stats."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(num_features))
        self.bias = nn.Parameter(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the per-channel normalised tensor: same shape as x."""
        return F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=self.eps)


if SCALE == "small":
    batch_size, features, dim1, dim2 = 3, 4, 5, 13
else:
    batch_size, features, dim1, dim2 = 16, 64, 256, 256


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features]
