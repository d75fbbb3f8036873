"""Embedding lookup: gather rows of a (vocab, dim) table by int64 token ids."""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    num_embeddings, embedding_dim, batch_size, seq_len = 50, 37, 3, 11
else:
    num_embeddings, embedding_dim, batch_size, seq_len = 32000, 4096, 8, 2048


class Model(nn.Module):
    """Looks up one embedding row per token id."""

    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return self.embedding(indices)


def get_inputs():
    indices = torch.randint(0, num_embeddings, (batch_size, seq_len), dtype=torch.int64)
    return [indices]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
