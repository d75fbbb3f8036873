"""RMS normalisation over the feature dim of a (batch, features, dim1, dim2) float32 tensor.

y = x / sqrt(mean(x ** 2, dim=1, keepdim=True) + eps): at every (batch, i, j) position the
features-long vector is divided by its root mean square. No affine parameters. The reduction runs
across a strided dimension (stride dim1 * dim2), not the contiguous one.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """RMSNorm across dim 1 with a fixed epsilon."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return x divided by its RMS over dim 1: same shape as x."""
        rms = torch.sqrt(torch.mean(x**2, dim=1, keepdim=True) + self.eps)
        return x / rms


if SCALE == "small":
    batch_size, features, dim1, dim2 = 2, 5, 7, 37
else:
    batch_size, features, dim1, dim2 = 16, 64, 256, 256


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features]
