"""GroupNorm of a (batch, channels, d1, d2) float32 tensor as a C++ CPU kernel (load_inline, OpenMP).

In NCHW layout one (batch, group) slice is a single contiguous span of channels_per_group * d1 * d2
floats, so OpenMP hands whole spans to threads. Per span: the mean, then the biased variance as the
mean of (x - mean)^2 (two passes: exact where E[x^2] - mean^2 would cancel), then the write, with
each channel's weight and bias folded into one scale and shift. Sums run in float across the simd
lanes of one channel plane and in double across planes, so spans of millions of values stay
accurate.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Below this many elements the spans run on the calling thread (OpenMP start-up costs microseconds).
MIN_PARALLEL_ELEMENTS = 32768

CPP_SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

#include <cmath>

// Sum of n contiguous floats (float simd lanes; the caller accumulates plane sums in double).
static inline float plane_sum(const float* p, int64_t n) {
    float s = 0.0f;
    #pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += p[i];
    return s;
}

// Sum of (p[i] - mean)^2 over n contiguous floats.
static inline float plane_sqdev(const float* p, int64_t n, float mean) {
    float s = 0.0f;
    #pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) {
        const float d = p[i] - mean;
        s += d * d;
    }
    return s;
}

// y = (x - mean_g) / sqrt(var_g + eps) * weight[c] + bias[c], statistics per (batch, group).
at::Tensor group_norm_forward(at::Tensor x, at::Tensor weight, at::Tensor bias, int64_t groups,
                                 double eps, int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu() && weight.device().is_cpu() && bias.device().is_cpu(),
                "group_norm_forward: all tensors must be on the CPU");
    TORCH_CHECK(x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
                bias.scalar_type() == at::kFloat, "group_norm_forward: all tensors must be float32");
    TORCH_CHECK(x.dim() >= 2, "group_norm_forward: x must be (batch, channels, ...)");
    const int64_t batch = x.size(0), channels = x.size(1);
    TORCH_CHECK(groups > 0 && channels % groups == 0, "group_norm_forward: ", channels,
                " channels do not split into ", groups, " groups");
    TORCH_CHECK(weight.numel() == channels && bias.numel() == channels,
                "group_norm_forward: weight and bias need one value per channel");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    auto y = at::empty_like(xc);
    const int64_t plane = batch * channels == 0 ? 0 : xc.numel() / (batch * channels);
    const int64_t cpg = channels / groups;
    const float* src = xc.data_ptr<float>();
    const float* w = wc.data_ptr<float>();
    const float* b = bc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    const double count = static_cast<double>(cpg * plane);
    #pragma omp parallel for schedule(static) if (xc.numel() >= min_parallel)
    for (int64_t ng = 0; ng < batch * groups; ++ng) {
        const int64_t g = ng % groups;
        const float* xs = src + ng * cpg * plane;  // the span of this (batch, group)
        float* ys = dst + ng * cpg * plane;
        double sum = 0.0;
        for (int64_t c = 0; c < cpg; ++c) sum += plane_sum(xs + c * plane, plane);
        const float mean = static_cast<float>(sum / count);
        double sq = 0.0;
        for (int64_t c = 0; c < cpg; ++c) sq += plane_sqdev(xs + c * plane, plane, mean);
        const float rstd = static_cast<float>(1.0 / std::sqrt(sq / count + eps));
        for (int64_t c = 0; c < cpg; ++c) {
            const int64_t ch = g * cpg + c;
            const float scale = rstd * w[ch];        // y = x * scale + shift
            const float shift = b[ch] - mean * scale;
            const float* xp = xs + c * plane;
            float* yp = ys + c * plane;
            #pragma omp simd
            for (int64_t i = 0; i < plane; ++i) yp[i] = xp[i] * scale + shift;
        }
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_group_norm_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["group_norm_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """GroupNorm with per-channel affine, computed by the C++ kernel above.

    The parameters are created exactly as the task's Model creates them (nn.GroupNorm's ones and
    zeros, then the same two random perturbations in the same order).
    """

    def __init__(self, num_features: int, num_groups: int, eps: float = 1e-5):
        super().__init__()
        self.num_groups = num_groups
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        with torch.no_grad():
            self.weight.add_(0.1 * torch.randn(num_features))
            self.bias.add_(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the group-normalised x (float32, CPU): same shape."""
        return _ext.group_norm_forward(x, self.weight, self.bias, self.num_groups, self.eps, MIN_PARALLEL_ELEMENTS)
