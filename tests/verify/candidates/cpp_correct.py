"""Correct C++ candidate for rowscale: an OpenMP loop over rows."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

// y[i, j] = max(x[i, j] * w[j], 0) for a contiguous float32 matrix x of shape (rows, cols)
at::Tensor rowscale(at::Tensor x, at::Tensor w) {
    TORCH_CHECK(x.dtype() == at::kFloat && w.dtype() == at::kFloat, "float32 only");
    auto xc = x.contiguous();
    auto y = at::empty_like(xc);
    const int64_t cols = xc.size(-1), rows = xc.numel() / cols;
    const float* xp = xc.data_ptr<float>();
    const float* wp = w.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    #pragma omp parallel for
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            float v = xp[i * cols + j] * wp[j];
            yp[i * cols + j] = v > 0.f ? v : 0.f;
        }
    return y;
}
"""

_ext = load_inline("akg_test_rowscale", cpp_sources=CPP_SOURCE, functions=["rowscale"],
                   extra_cflags=["-O3", "-fopenmp"], extra_ldflags=["-fopenmp"], no_implicit_headers=True)


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.rowscale(x, self.weight.detach())
