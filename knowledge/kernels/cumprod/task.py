"""Inclusive prefix product along dim 1 of a (batch, length) float32 tensor: y[i, j] = prod_{k<=j} x[i, k].

A multiplicative scan. Input choice: factors of plain torch.randn make every row underflow to 0
after a few dozen steps, which would leave almost nothing to check; here the factors are
1 + 0.01 * randn, so a 4000-long product stays of order 1 (its log is a random walk of standard
deviation ~0.6) and every output carries information. fp32 rounding then grows like
sqrt(length) * 6e-8 relative, well inside the 1e-4 tolerance.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")


class Model(nn.Module):
    """Cumulative product along dimension ``dim``."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return torch.cumprod(x, dim=self.dim): same shape as x."""
        return torch.cumprod(x, dim=self.dim)


if SCALE == "small":
    batch_size, length = 4, 301
else:
    batch_size, length = 128, 4000
scan_dim = 1


def get_inputs():
    x = 1.0 + 0.01 * torch.randn(batch_size, length)
    return [x]


def get_init_inputs():
    return [scan_dim]
