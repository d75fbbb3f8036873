"""GELU (exact erf form) as a C++ CPU kernel (y = 0.5 * x * (1 + erf(x / sqrt(2)))).

One OpenMP-parallel loop over the flattened tensor: each thread takes a contiguous static slice,
reads every float once and writes it once. The body has no loop-carried dependence, so -O3
-march=native vectorises it (exp and erf are branch-free approximations, exp_fast and erf_fast,
not libm calls). Small tensors run on one thread: starting the OpenMP team costs microseconds,
more than the loop itself below MIN_PARALLEL_ELEMENTS.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Below this many elements the loop runs on the calling thread (tunable).
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

// exp(x) without a library call, so the loop below vectorises. x = k*ln2 + r with integer k and
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

// erf(x) from the rational-times-exponential approximation of Abramowitz & Stegun 7.1.26
// (absolute error <= 1.5e-7), branch-free so the loop vectorises; erf is odd.
static inline float erf_fast(float x) {
    const float a = std::fabs(x);
    const float t = 1.0f / (1.0f + 0.3275911f * a);
    float p = 1.061405429f;
    p = p * t - 1.453152027f;
    p = p * t + 1.421413741f;
    p = p * t - 0.284496736f;
    p = p * t + 0.254829592f;
    const float y = 1.0f - p * t * exp_fast(-a * a);
    return x < 0.0f ? -y : y;
}

constexpr float kInvSqrt2 = 0.70710678118654752f;  // 1 / sqrt(2)

// y = 0.5 * x * (1 + erf(x / sqrt(2))), elementwise over a float32 CPU tensor of any shape.
at::Tensor gelu_forward(at::Tensor x, int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu(), "gelu_forward: x must be a CPU tensor");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "gelu_forward: x must be float32, got ", x.scalar_type());
    auto xc = x.contiguous();  // no copy when x is already contiguous
    auto y = at::empty_like(xc);
    const float* src = xc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    const int64_t n = xc.numel();
    #pragma omp parallel for simd schedule(static) if (n >= min_parallel)
    for (int64_t i = 0; i < n; ++i) {
        const float v = src[i];
        dst[i] = 0.5f * v * (1.0f + erf_fast(v * kInvSqrt2));
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_gelu_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["gelu_forward"],
    # -fno-trapping-math: the loops over exp_fast vectorise only when GCC may assume no FP traps
    # (Linux runs with traps masked); unlike -ffast-math it changes no result.
    extra_cflags=["-O3", "-march=native", "-fopenmp", "-fno-trapping-math"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """GELU (exact erf form) computed by the C++ kernel above."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the activation of x (float32, CPU): same shape and dtype."""
        return _ext.gelu_forward(x, MIN_PARALLEL_ELEMENTS)
