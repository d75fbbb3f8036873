"""Test task with randomness: y = dropout(tanh(x * w), p) + x in training mode.

The dropout mask is drawn in ``forward``, so a candidate matches only when the verifier seeds the
random generator identically before the reference's and the candidate's forward calls. Two input
sets (dynamic shapes): the second set's mask must not depend on what the first forward drew.
"""

import torch
import torch.nn as nn

M, N = 13, 29


class Model(nn.Module):
    def __init__(self, n: int, p: float):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))
        self.drop = nn.Dropout(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(torch.tanh(x * self.weight)) + x


def get_inputs():
    return [torch.randn(M, N)]


def get_inputs_dyn_list():
    return [[torch.randn(M, N)], [torch.randn(5, N)]]


def get_init_inputs():
    return [N, 0.3]
