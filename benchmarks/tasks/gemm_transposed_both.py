"""Product of two transposed operands: a.t() @ b.t(), a [K, M], b [N, K].

Exercises: both GEMM operands as transposed (column-major) views.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    m, k, n = 18, 31, 25
else:
    m, k, n = 4096, 4096, 2048


class Model(nn.Module):
    """a^T b^T."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.t() @ b.t()


def get_inputs():
    return [torch.randn(k, m), torch.randn(n, k)]


def get_init_inputs():
    return []
