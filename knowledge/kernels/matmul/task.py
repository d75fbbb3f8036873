"""Square matrix multiplication: C = A @ B with A, B of shape (N, N)."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    N = 37  # not a multiple of any tile size, so every tail mask is exercised
else:
    N = 4096


class Model(nn.Module):
    """Multiplies two square matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]


def get_init_inputs():
    return []
