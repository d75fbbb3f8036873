"""Matmul with a fused epilogue: out = alpha * (A @ B) + C."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    M, K, N = 33, 29, 47
else:
    M, K, N = 2048, 2048, 2048
alpha = 0.5


class Model(nn.Module):
    """Scales a matrix product and adds a third matrix."""

    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor) -> torch.Tensor:
        return self.alpha * torch.matmul(A, B) + C


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, N)
    C = torch.rand(M, N)
    return [A, B, C]


def get_init_inputs():
    return [alpha]
