"""clamp(x * scale + bias, lo, hi) with per-feature scale and bias, as one OpenMP-parallel C++ pass.

Memory-bound elementwise chain: one read and one write per element instead of the three
intermediate tensors of the unfused version. Rows go to threads; the inner loop vectorises.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>
#include <algorithm>

// Below this much work a single thread finishes before an OpenMP fork/join (a few
// microseconds) would pay off, so the loop runs serially.
constexpr int64_t MIN_PARALLEL_WORK = 1 << 15;

at::Tensor mul_add_clamp_forward(at::Tensor x, at::Tensor scale, at::Tensor bias,
                                    double lo, double hi) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && scale.scalar_type() == at::kFloat &&
              bias.scalar_type() == at::kFloat, "mul_add_clamp: float32 only");
  TORCH_CHECK(x.dim() >= 1 && scale.dim() == 1 && bias.dim() == 1 &&
              scale.size(0) == x.size(-1) && bias.size(0) == x.size(-1),
              "mul_add_clamp: scale and bias must match the last dimension of x");
  TORCH_CHECK(lo <= hi, "mul_add_clamp: min_value must not exceed max_value");
  x = x.contiguous();
  scale = scale.contiguous();
  bias = bias.contiguous();
  const int64_t F = x.size(-1), M = F > 0 ? x.numel() / F : 0;
  auto out = at::empty_like(x);
  const float* xp = x.data_ptr<float>();
  const float* s = scale.data_ptr<float>();
  const float* b = bias.data_ptr<float>();
  float* op = out.data_ptr<float>();
  const float l = static_cast<float>(lo), h = static_cast<float>(hi);
#pragma omp parallel for schedule(static) if (M * F >= MIN_PARALLEL_WORK)
  for (int64_t i = 0; i < M; ++i) {
#pragma omp simd
    for (int64_t j = 0; j < F; ++j)
      op[i * F + j] = std::min(std::max(xp[i * F + j] * s[j] + b[j], l), h);
  }
  return out;
}
"""

_ext = load_inline(
    name="akg_seed_mul_add_clamp_cpp",
    cpp_sources=CPP_SOURCE,
    functions=["mul_add_clamp_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """Scale, shift and clamp through the C++ kernel; parameters created as in the reference."""

    def __init__(self, features: int, min_value: float, max_value: float):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))
        self.min_value = min_value
        self.max_value = max_value

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.mul_add_clamp_forward(x, self.scale, self.bias, float(self.min_value),
                                          float(self.max_value))
