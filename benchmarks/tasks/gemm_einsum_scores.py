"""Attention-style scores with einsum on 4-D operands: einsum("bhqd,bhkd->bhqk", q, k) * d^-0.5.

Exercises: two batch dims, the second operand transposed (contracted on its last dim), a scale.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch, heads, q_len, k_len, head_dim = 2, 3, 11, 13, 8
else:
    batch, heads, q_len, k_len, head_dim = 8, 16, 1024, 1024, 64


class Model(nn.Module):
    """Scaled dot products of queries and keys."""

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bhqd,bhkd->bhqk", q, k) * q.shape[-1] ** -0.5


def get_inputs():
    return [torch.randn(batch, heads, q_len, head_dim), torch.randn(batch, heads, k_len, head_dim)]


def get_init_inputs():
    return []
