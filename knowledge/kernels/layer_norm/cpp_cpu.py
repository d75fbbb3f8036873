"""LayerNorm over the trailing dims of a float32 tensor as a C++ CPU kernel (load_inline, OpenMP).

The input is viewed as (rows, row_len) with row_len = weight.numel(). OpenMP splits the rows
across threads; each row (16 KiB at full scale, so it stays in L1/L2) takes three vectorised
passes: the mean, the biased variance as the mean of (x - mean)^2 (two passes are exact where
E[x^2] - mean^2 would cancel), and the write of (x - mean) * rstd * weight + bias.
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

#include <cmath>

// y = (x - mean) / sqrt(var + eps) * weight + bias, statistics per row of row_len elements.
at::Tensor layer_norm_forward(at::Tensor x, at::Tensor weight, at::Tensor bias, double eps,
                                 int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu() && weight.device().is_cpu() && bias.device().is_cpu(),
                "layer_norm_forward: all tensors must be on the CPU");
    TORCH_CHECK(x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
                bias.scalar_type() == at::kFloat, "layer_norm_forward: all tensors must be float32");
    TORCH_CHECK(weight.numel() == bias.numel(), "layer_norm_forward: weight and bias sizes differ");
    const int64_t row_len = weight.numel();
    TORCH_CHECK(row_len > 0 && x.numel() % row_len == 0,
                "layer_norm_forward: x's trailing dims must hold weight.numel() = ", row_len, " elements");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    auto y = at::empty_like(xc);
    const int64_t rows = xc.numel() / row_len;
    const float* src = xc.data_ptr<float>();
    const float* w = wc.data_ptr<float>();
    const float* b = bc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    const float inv_n = 1.0f / static_cast<float>(row_len);
    #pragma omp parallel for schedule(static) if (xc.numel() >= min_parallel)
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = src + r * row_len;
        float* yr = dst + r * row_len;
        float sum = 0.0f;  // simd lanes keep separate partial sums
        #pragma omp simd reduction(+ : sum)
        for (int64_t j = 0; j < row_len; ++j) sum += xr[j];
        const float mean = sum * inv_n;
        float sq = 0.0f;
        #pragma omp simd reduction(+ : sq)
        for (int64_t j = 0; j < row_len; ++j) {
            const float d = xr[j] - mean;
            sq += d * d;
        }
        const float rstd = 1.0f / std::sqrt(sq * inv_n + static_cast<float>(eps));
        #pragma omp simd
        for (int64_t j = 0; j < row_len; ++j) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_layer_norm_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["layer_norm_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """LayerNorm with elementwise affine, computed by the C++ kernel above.

    The parameters are created exactly as the task's Model creates them (ones and zeros, then the
    same two random perturbations in the same order), so one seed gives identical weights.
    """

    def __init__(self, normalized_shape: tuple, eps: float = 1e-5):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))
        with torch.no_grad():
            self.weight.add_(0.1 * torch.randn(self.normalized_shape))
            self.bias.add_(0.1 * torch.randn(self.normalized_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the layer-normalised x (float32, CPU): same shape."""
        if tuple(x.shape[-len(self.normalized_shape):]) != self.normalized_shape:
            raise ValueError(f"layer_norm: trailing dims {tuple(x.shape)} do not end in {self.normalized_shape}")
        return _ext.layer_norm_forward(x, self.weight, self.bias, self.eps, MIN_PARALLEL_ELEMENTS)
