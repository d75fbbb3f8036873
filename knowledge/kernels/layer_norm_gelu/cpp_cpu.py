"""gelu(layer_norm(x)) over the last dimension, fused in one C++ pass per row with OpenMP.

Rows go to threads. Mean and variance are two passes over the row (no E[x^2] - E[x]^2
cancellation) with vectorised fp32 sums; then normalise, apply the affine weight and bias and the
exact erf GELU while the row is still in L1.
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
#include <cmath>

// Below this much work a single thread finishes before an OpenMP fork/join (a few
// microseconds) would pay off, so the loop runs serially.
constexpr int64_t MIN_PARALLEL_WORK = 1 << 15;

at::Tensor layer_norm_gelu_forward(at::Tensor x, at::Tensor weight, at::Tensor bias,
                                      double eps) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
              bias.scalar_type() == at::kFloat, "layer_norm_gelu: float32 only");
  TORCH_CHECK(x.dim() >= 1 && weight.dim() == 1 && bias.dim() == 1 &&
              weight.size(0) == x.size(-1) && bias.size(0) == x.size(-1),
              "layer_norm_gelu: weight and bias must match the last dimension of x");
  x = x.contiguous();
  weight = weight.contiguous();
  bias = bias.contiguous();
  const int64_t N = x.size(-1), M = x.numel() / N;
  auto out = at::empty_like(x);
  const float* xp = x.data_ptr<float>();
  const float* w = weight.data_ptr<float>();
  const float* b = bias.data_ptr<float>();
  float* op = out.data_ptr<float>();
  const float e = static_cast<float>(eps);
#pragma omp parallel for schedule(static) if (M * N >= MIN_PARALLEL_WORK)
  for (int64_t i = 0; i < M; ++i) {
    const float* row = xp + i * N;
    float* dst = op + i * N;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < N; ++j) sum += row[j];
    const float mean = sum / static_cast<float>(N);
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (int64_t j = 0; j < N; ++j) sq += (row[j] - mean) * (row[j] - mean);
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(N) + e);
    for (int64_t j = 0; j < N; ++j) {
      const float y = (row[j] - mean) * rstd * w[j] + b[j];
      dst[j] = 0.5f * y * (1.0f + std::erf(y * 0.70710678118654752f));  // x * Phi(x)
    }
  }
  return out;
}
"""

_ext = load_inline(
    name="akg_seed_layer_norm_gelu_cpp",
    cpp_sources=CPP_SOURCE,
    functions=["layer_norm_gelu_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """LayerNorm + GELU through the fused C++ kernel; nn.LayerNorm holds the affine parameters."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.layer_norm_gelu_forward(x, self.norm.weight, self.norm.bias, self.norm.eps)
