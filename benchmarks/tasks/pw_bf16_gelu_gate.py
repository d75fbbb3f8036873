"""bfloat16 gated GELU: gelu(x) * g with x, g and the result in bfloat16.

Exercises: bfloat16 loads and stores (math in float32 inside the kernel), a GEGLU-style gate.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    tokens, hidden = 19, 37
else:
    tokens, hidden = 16384, 5632


class Model(nn.Module):
    """GELU of the value times the gate, all in bfloat16."""

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return F.gelu(x) * g


def get_inputs():
    return [torch.randn(tokens, hidden, dtype=torch.bfloat16),
            torch.randn(tokens, hidden, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
