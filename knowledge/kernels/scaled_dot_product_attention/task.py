"""Scaled dot-product attention on (B, H, S, D) tensors: softmax(Q K^T / sqrt(D)) V, no mask."""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    batch_size, num_heads, seq_len, head_dim = 2, 2, 37, 16
else:
    batch_size, num_heads, seq_len, head_dim = 8, 16, 1024, 64


class Model(nn.Module):
    """Non-causal multi-head attention without a mask or dropout."""

    def __init__(self):
        super().__init__()

    def forward(self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(Q, K, V)


def get_inputs():
    Q = torch.randn(batch_size, num_heads, seq_len, head_dim)
    K = torch.randn(batch_size, num_heads, seq_len, head_dim)
    V = torch.randn(batch_size, num_heads, seq_len, head_dim)
    return [Q, K, V]


def get_init_inputs():
    return []
