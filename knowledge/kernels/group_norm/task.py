"""Group normalisation of a (batch, features, dim1, dim2) float32 tensor (nn.GroupNorm).

The features are split into num_groups groups; every (batch, group) slice of
(features / num_groups) * dim1 * dim2 values is normalised by its mean and biased variance
(eps = 1e-5), then each channel is scaled and shifted by its own weight and bias.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """nn.GroupNorm with per-channel affine parameters (perturbed from ones/zeros)."""

    def __init__(self, num_features: int, num_groups: int):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)
        with torch.no_grad():
            self.gn.weight.add_(0.1 * torch.randn(num_features))
            self.gn.bias.add_(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the group-normalised tensor: same shape as x."""
        return self.gn(x)


if SCALE == "small":
    batch_size, features, num_groups, dim1, dim2 = 2, 6, 3, 5, 11
else:
    batch_size, features, num_groups, dim1, dim2 = 16, 64, 8, 256, 256


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features, num_groups]
