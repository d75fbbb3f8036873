"""Guard no_work (escape c): an identity C++ "kernel"; torch computes the function with other aten ops
(clamp instead of the reference's relu, so op-name coverage alone would call it partial)."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SOURCE = r"""
#include <torch/extension.h>

// returns its input unchanged: no work at all
torch::Tensor passthrough(torch::Tensor x) { return x; }
"""

_ext = load_inline("akg_test_identity", cpp_sources=CPP_SOURCE, functions=["passthrough"],
                   extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = _ext.passthrough(x)
        return torch.clamp(y * self.weight, min=0.0)
