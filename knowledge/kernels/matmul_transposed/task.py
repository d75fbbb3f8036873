"""Matrix multiplication with a transposed right operand: C = A @ B.T, A (M, K), B (N, K)."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    M, K, N = 33, 29, 47
else:
    M, K, N = 1024, 4096, 2048


class Model(nn.Module):
    """Multiplies A by the transpose of B."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B.T)


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(N, K)
    return [A, B]


def get_init_inputs():
    return []
