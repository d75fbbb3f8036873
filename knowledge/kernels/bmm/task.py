"""Batched matrix multiplication: C[b] = A[b] @ B[b] for A (B, M, K) and B (B, K, N)."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, m, k, n = 3, 17, 23, 19
else:
    batch_size, m, k, n = 128, 256, 512, 1024


class Model(nn.Module):
    """Multiplies two batches of matrices, one product per batch entry."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


def get_inputs():
    A = torch.rand(batch_size, m, k)
    B = torch.rand(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []
