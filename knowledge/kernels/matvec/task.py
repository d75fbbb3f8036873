"""Matrix-vector multiplication: y = A @ x with A (M, K) and x (K, 1)."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    M, K = 33, 257
else:
    M, K = 2048, 131072


class Model(nn.Module):
    """Multiplies a matrix by a column vector."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, 1)
    return [A, B]


def get_init_inputs():
    return []
