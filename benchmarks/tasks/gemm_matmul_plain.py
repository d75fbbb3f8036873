"""Plain matrix product of two 2-D tensors: torch.matmul(a, b), a [M, K], b [K, N].

Exercises: the GEMM core alone, with M, N, K all off tile multiples at small scale.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    m, k, n = 29, 19, 23
else:
    m, k, n = 4096, 3072, 4096


class Model(nn.Module):
    """a @ b."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(m, k), torch.randn(k, n)]


def get_init_inputs():
    return []
