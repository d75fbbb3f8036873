"""Compile error: the C++ source uses an undeclared name (the feedback must quote the error line).

It includes the tensor and binding headers only (``no_implicit_headers``), as the lowering's and the
seeds' C++ do, so the compiler reaches the error in seconds; cpp_identity keeps torch/extension.h."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <torch/csrc/utils/pybind.h>

at::Tensor rowscale(at::Tensor x, at::Tensor w) {
    auto y = at::empty_like(x);
    float* yp = y.data_ptr<float>();
    yp[0] = undeclared_scale;
    return y;
}
"""

_ext = load_inline("akg_test_rowscale_broken", cpp_sources=CPP_SOURCE, functions=["rowscale"],
                   extra_cflags=["-O1"], no_implicit_headers=True)


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.rowscale(x, self.weight.detach())
