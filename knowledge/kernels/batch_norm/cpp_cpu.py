"""BatchNorm with batch statistics of a (batch, channels, d1, d2) float32 tensor as a C++ CPU kernel.

Channel c's values are `batch` contiguous planes of d1 * d2 floats, channels * d1 * d2 apart.
OpenMP hands whole channels to threads. Per channel: the mean over all its planes, then the biased
variance as the mean of (x - mean)^2 (two passes: exact where E[x^2] - mean^2 would cancel), then
the write with weight and bias folded into one scale and shift. Plane sums use float simd lanes
and are added in double, so a channel of a million values stays accurate.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Below this many elements the channels run on the calling thread (OpenMP start-up costs microseconds).
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

// y = (x - mean_c) / sqrt(var_c + eps) * weight[c] + bias[c], statistics over (batch, spatial).
at::Tensor batch_norm_forward(at::Tensor x, at::Tensor weight, at::Tensor bias, double eps,
                                 int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu() && weight.device().is_cpu() && bias.device().is_cpu(),
                "batch_norm_forward: all tensors must be on the CPU");
    TORCH_CHECK(x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
                bias.scalar_type() == at::kFloat, "batch_norm_forward: all tensors must be float32");
    TORCH_CHECK(x.dim() >= 2, "batch_norm_forward: x must be (batch, channels, ...)");
    const int64_t batch = x.size(0), channels = x.size(1);
    TORCH_CHECK(weight.numel() == channels && bias.numel() == channels,
                "batch_norm_forward: weight and bias need one value per channel");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    auto y = at::empty_like(xc);
    const int64_t plane = batch * channels == 0 ? 0 : xc.numel() / (batch * channels);
    const float* src = xc.data_ptr<float>();
    const float* w = wc.data_ptr<float>();
    const float* b = bc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    const double count = static_cast<double>(batch * plane);
    const int64_t stride_n = channels * plane;  // floats between the planes of one channel
    #pragma omp parallel for schedule(static) if (xc.numel() >= min_parallel)
    for (int64_t c = 0; c < channels; ++c) {
        const float* xs = src + c * plane;
        float* ys = dst + c * plane;
        double sum = 0.0;
        for (int64_t n = 0; n < batch; ++n) sum += plane_sum(xs + n * stride_n, plane);
        const float mean = static_cast<float>(sum / count);
        double sq = 0.0;
        for (int64_t n = 0; n < batch; ++n) sq += plane_sqdev(xs + n * stride_n, plane, mean);
        const float rstd = static_cast<float>(1.0 / std::sqrt(sq / count + eps));
        const float scale = rstd * w[c];  // y = x * scale + shift
        const float shift = b[c] - mean * scale;
        for (int64_t n = 0; n < batch; ++n) {
            const float* xp = xs + n * stride_n;
            float* yp = ys + n * stride_n;
            #pragma omp simd
            for (int64_t i = 0; i < plane; ++i) yp[i] = xp[i] * scale + shift;
        }
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_batch_norm_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["batch_norm_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """Batch-statistics BatchNorm with affine parameters, computed by the C++ kernel above.

    weight and bias are drawn exactly as the task's Model draws them (same expressions, same order).
    """

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(num_features))
        self.bias = nn.Parameter(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the batch-normalised x (float32, CPU): same shape."""
        return _ext.batch_norm_forward(x, self.weight, self.bias, self.eps, MIN_PARALLEL_ELEMENTS)
