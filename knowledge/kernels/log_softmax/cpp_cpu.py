"""LogSoftmax over the last dim of a 2-D float32 tensor as a C++ CPU kernel (load_inline, OpenMP).

Rows are independent, so OpenMP splits the rows across threads. Each row takes three passes over
memory that stays in cache: the maximum m (simd max reduction), the sum s of exp(x - m) (simd sum
reduction, nothing written), then y = x - (m + log s). exp() is a branch-free polynomial
(exp_fast, ~1e-7 relative error) so the middle pass vectorises; log() runs once per row.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Below this many elements the rows run on the calling thread (OpenMP start-up costs microseconds).
MIN_PARALLEL_ELEMENTS = 32768

CPP_SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

// exp(x) without a library call, so loops using it vectorise. x = k*ln2 + r with integer k and
// |r| <= ln2/2; exp(r) is its Taylor polynomial to r^7 (truncation < 6e-9 relative there) and
// 2^k is written straight into the exponent bits. Clamping to [-87, 88] keeps 2^k a normal
// float; outside that range the float result under/overflows anyway.
static inline float exp_fast(float x) {
    x = x < -87.0f ? -87.0f : x;  // compare-and-select, not fmin/fmax: those block vectorisation
    x = x > 88.0f ? 88.0f : x;
    // k = round(x / ln2): x / ln2 + 128.5 > 0 here, so truncation rounds; the bias is taken back.
    const int32_t ki = static_cast<int32_t>(x * 1.44269504088896341f + 128.5f) - 128;
    const float k = static_cast<float>(ki);
    const float r = (x - k * 0.693145751953125f) - k * 1.42860682030941723e-6f;  // ln2 = hi + lo
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    const int32_t bits = (ki + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

// y[r, :] = x[r, :] - logsumexp(x[r, :]) for every row r of a (rows, cols) tensor.
at::Tensor log_softmax_forward(at::Tensor x, int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu(), "log_softmax_forward: x must be a CPU tensor");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "log_softmax_forward: x must be float32, got ", x.scalar_type());
    TORCH_CHECK(x.dim() == 2, "log_softmax_forward: x must be 2-D (rows, cols), got ", x.dim(), " dims");
    auto xc = x.contiguous();
    auto y = at::empty_like(xc);
    const int64_t rows = xc.size(0), cols = xc.size(1);
    const float* src = xc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    #pragma omp parallel for schedule(static) if (rows * cols >= min_parallel)
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = src + r * cols;
        float* yr = dst + r * cols;
        float m = -INFINITY;
        #pragma omp simd reduction(max : m)
        for (int64_t j = 0; j < cols; ++j) m = std::max(m, xr[j]);
        float s = 0.0f;
        #pragma omp simd reduction(+ : s)
        for (int64_t j = 0; j < cols; ++j) s += exp_fast(xr[j] - m);
        const float lse = m + std::log(s);  // s >= 1, so the log is well conditioned
        #pragma omp simd
        for (int64_t j = 0; j < cols; ++j) yr[j] = xr[j] - lse;
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_log_softmax_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["log_softmax_forward"],
    # -fno-trapping-math: the loops over exp_fast vectorise only when GCC may assume no FP traps
    # (Linux runs with traps masked); unlike -ffast-math it changes no result.
    extra_cflags=["-O3", "-march=native", "-fopenmp", "-fno-trapping-math"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """LogSoftmax over the last dim of a 2-D tensor, computed by the C++ kernel above."""

    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return log_softmax(x, dim=self.dim) for a (rows, cols) float32 CPU tensor."""
        if x.dim() != 2 or self.dim not in (1, -1):
            raise ValueError(f"log_softmax kernel handles the last dim of a 2-D tensor, got dim={self.dim} "
                             f"of a {x.dim()}-D tensor")
        return _ext.log_softmax_forward(x, MIN_PARALLEL_ELEMENTS)
