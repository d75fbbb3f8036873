"""Sigmoid as a C++ CPU kernel (y = 1 / (1 + exp(-x))).

One OpenMP-parallel loop over the flattened tensor: each thread takes a contiguous static slice,
reads every float once and writes it once. The body has no loop-carried dependence, so -O3
-march=native vectorises it. Small tensors run on one thread: starting the OpenMP team costs
microseconds, more than the loop itself below MIN_PARALLEL_ELEMENTS.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Below this many elements the loop runs on the calling thread (tunable).
MIN_PARALLEL_ELEMENTS = 32768

CPP_SOURCE = r"""
#include <torch/extension.h>

#include <algorithm>
#include <cmath>

// y = 1 / (1 + exp(-x)), elementwise over a float32 CPU tensor of any shape.
torch::Tensor sigmoid_forward(torch::Tensor x, int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu(), "sigmoid_forward: x must be a CPU tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "sigmoid_forward: x must be float32, got ", x.scalar_type());
    auto xc = x.contiguous();  // no copy when x is already contiguous
    auto y = torch::empty_like(xc);
    const float* src = xc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    const int64_t n = xc.numel();
    #pragma omp parallel for simd schedule(static) if (n >= min_parallel)
    for (int64_t i = 0; i < n; ++i) {
        const float v = src[i];
        dst[i] = 1.0f / (1.0f + std::exp(-v));
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_sigmoid_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["sigmoid_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
)


class ModelNew(nn.Module):
    """Sigmoid computed by the C++ kernel above."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the activation of x (float32, CPU): same shape and dtype."""
        return _ext.sigmoid_forward(x, MIN_PARALLEL_ELEMENTS)
