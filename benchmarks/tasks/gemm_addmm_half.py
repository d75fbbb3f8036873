"""float16 GEMM with a bias row: torch.addmm(bias, a, b), everything in float16.

Exercises: half-precision operands with float32 accumulation, a broadcast bias.
"""

import os

import torch
import torch.nn as nn

SCALE = os.environ.get("AKG_TASK_SCALE", "full")

if SCALE == "small":
    m, k, n = 27, 33, 14
else:
    m, k, n = 8192, 4096, 4096


class Model(nn.Module):
    """bias + a @ b in float16."""

    def forward(self, bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.addmm(bias, a, b)


def get_inputs():
    # operands scaled by 1/sqrt(k) so the float16 result stays well inside its range
    return [torch.randn(n, dtype=torch.float16), torch.randn(m, k, dtype=torch.float16),
            (torch.randn(k, n) / k ** 0.5).half()]


def get_init_inputs():
    return []
