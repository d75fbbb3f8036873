"""Layer normalisation over the last two dims of a (batch, features, dim1, dim2) float32 tensor.

nn.LayerNorm((dim1, dim2)) with an elementwise affine: every (batch, feature) slice of dim1 * dim2
values is normalised by its own mean and biased variance (eps = 1e-5), then scaled by weight and
shifted by bias, both of shape (dim1, dim2). The affine parameters are perturbed from their
default ones/zeros at construction so that a kernel ignoring them cannot pass.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """LayerNorm over the trailing ``normalized_shape`` dimensions."""

    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape)
        with torch.no_grad():
            self.ln.weight.add_(0.1 * torch.randn(normalized_shape))
            self.ln.bias.add_(0.1 * torch.randn(normalized_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the normalised tensor: same shape as x."""
        return self.ln(x)


if SCALE == "small":
    batch_size, features, dim1, dim2 = 2, 3, 5, 67
else:
    batch_size, features, dim1, dim2 = 16, 64, 64, 64


def get_inputs():
    x = torch.randn(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [(dim1, dim2)]
