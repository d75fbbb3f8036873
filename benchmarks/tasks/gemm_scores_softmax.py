"""Row softmax of scaled query-key products: softmax(q @ k^T / sqrt(d), dim=-1), batched.

Exercises: a batched GEMM whose tail is a softmax over N (the whole key length).
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, q_len, k_len, dim = 2, 9, 21, 12
else:
    batch, q_len, k_len, dim = 64, 1024, 1024, 128


class Model(nn.Module):
    """Attention weights (no mask, no value product)."""

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) / q.shape[-1] ** 0.5
        return torch.softmax(scores, dim=-1)


def get_inputs():
    return [torch.randn(batch, q_len, dim), torch.randn(batch, k_len, dim)]


def get_init_inputs():
    return []
