"""Instance normalisation of a (batch, features, dim1, dim2) float32 tensor (nn.InstanceNorm2d).

Every (batch, channel) plane of dim1 * dim2 values is normalised by its own mean and biased
variance (eps = 1e-5). Default nn.InstanceNorm2d: no affine parameters, no running statistics.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """nn.InstanceNorm2d over each (batch, channel) plane."""

    def __init__(self, num_features: int):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the instance-normalised tensor: same shape as x."""
        return self.inorm(x)


if SCALE == "small":
    batch_size, features, dim1, dim2 = 2, 3, 9, 29
else:
    batch_size, features, dim1, dim2 = 16, 64, 256, 256


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features]
