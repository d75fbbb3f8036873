"""Compile error: the C++ source uses an undeclared name (the feedback must quote the error line)."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SOURCE = r"""
#include <torch/extension.h>

torch::Tensor rowscale(torch::Tensor x, torch::Tensor w) {
    auto y = torch::empty_like(x);
    float* yp = y.data_ptr<float>();
    yp[0] = undeclared_scale;
    return y;
}
"""

_ext = load_inline("akg_test_rowscale_broken", cpp_sources=CPP_SOURCE, functions=["rowscale"],
                   extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.rowscale(x, self.weight.detach())
