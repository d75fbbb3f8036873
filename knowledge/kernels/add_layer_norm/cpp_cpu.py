"""layer_norm(x + residual) over the last dimension, fused in one C++ pass per row with OpenMP.

Rows go to threads. The sum x + residual is formed once into the output row (so it is read from L1
afterwards, never written back as a separate tensor), then a two-pass mean and variance with
vectorised fp32 sums, then the normalisation with the affine weight and bias, in place.
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

at::Tensor add_layer_norm_forward(at::Tensor x, at::Tensor residual, at::Tensor weight,
                                     at::Tensor bias, double eps) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && residual.scalar_type() == at::kFloat &&
              weight.scalar_type() == at::kFloat && bias.scalar_type() == at::kFloat,
              "add_layer_norm: float32 only");
  TORCH_CHECK(x.sizes() == residual.sizes(), "add_layer_norm: x and residual must have one shape");
  TORCH_CHECK(x.dim() >= 1 && weight.dim() == 1 && bias.dim() == 1 &&
              weight.size(0) == x.size(-1) && bias.size(0) == x.size(-1),
              "add_layer_norm: weight and bias must match the last dimension of x");
  x = x.contiguous();
  residual = residual.contiguous();
  weight = weight.contiguous();
  bias = bias.contiguous();
  const int64_t N = x.size(-1), M = x.numel() / N;
  auto out = at::empty_like(x);
  const float* xp = x.data_ptr<float>();
  const float* rp = residual.data_ptr<float>();
  const float* w = weight.data_ptr<float>();
  const float* b = bias.data_ptr<float>();
  float* op = out.data_ptr<float>();
  const float e = static_cast<float>(eps);
#pragma omp parallel for schedule(static) if (M * N >= MIN_PARALLEL_WORK)
  for (int64_t i = 0; i < M; ++i) {
    float* row = op + i * N;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < N; ++j) {
      row[j] = xp[i * N + j] + rp[i * N + j];
      sum += row[j];
    }
    const float mean = sum / static_cast<float>(N);
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (int64_t j = 0; j < N; ++j) sq += (row[j] - mean) * (row[j] - mean);
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(N) + e);
#pragma omp simd
    for (int64_t j = 0; j < N; ++j) row[j] = (row[j] - mean) * rstd * w[j] + b[j];
  }
  return out;
}
"""

_ext = load_inline(
    name="akg_seed_add_layer_norm_cpp",
    cpp_sources=CPP_SOURCE,
    functions=["add_layer_norm_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """Residual add + LayerNorm through the fused C++ kernel; nn.LayerNorm holds the parameters."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return _ext.add_layer_norm_forward(x, residual, self.norm.weight, self.norm.bias, self.norm.eps)
