"""Argmax reduction over one dim of a float32 tensor as a C++ CPU kernel (load_inline, OpenMP).

Computes the int64 index of the first maximum over dim (dim removed). The input is viewed as
(outer, reduced, inner). When inner > 1 (the task reduces dim 1 of (batch, dim1, dim2))
consecutive outputs read consecutive addresses, so the kernel walks tiles of TILE output columns
and, for each step along the reduced dim, updates the whole tile with one unit-stride vectorised
loop; OpenMP splits the (outer, tile) pairs across threads.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TILE = 256  # output columns per tile (multiple of 16 floats = one AVX-512 vector)
# Below this many input elements the tiles run on the calling thread (OpenMP start-up costs microseconds).
MIN_PARALLEL_ELEMENTS = 32768

CPP_SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

#include <algorithm>
#include <cmath>
#include <vector>

// int64 index of the first maximum over dim (dim removed): x viewed as (outer, red, inner) -> (outer, inner).
at::Tensor argmax_forward(at::Tensor x, int64_t dim, int64_t tile, int64_t min_parallel) {
    TORCH_CHECK(x.device().is_cpu(), "argmax_forward: x must be a CPU tensor");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "argmax_forward: x must be float32, got ", x.scalar_type());
    TORCH_CHECK(x.dim() > 0, "argmax_forward: x must have at least one dim");
    TORCH_CHECK(tile > 0, "argmax_forward: tile must be positive");
    if (dim < 0) dim += x.dim();
    TORCH_CHECK(dim >= 0 && dim < x.dim(), "argmax_forward: dim out of range");
    const int64_t red = x.size(dim);
    TORCH_CHECK(red > 0, "argmax_forward: cannot reduce an empty dim");
    auto xc = x.contiguous();
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < dim; ++i) outer *= xc.size(i);
    for (int64_t i = dim + 1; i < xc.dim(); ++i) inner *= xc.size(i);
    std::vector<int64_t> out_shape(xc.sizes().begin(), xc.sizes().end());
    out_shape.erase(out_shape.begin() + dim);  // the reduced dim is dropped
    auto y = at::empty(out_shape, xc.options().dtype(at::kLong));
    const float* src = xc.data_ptr<float>();
    int64_t* dst = y.data_ptr<int64_t>();
    const int64_t tiles = (inner + tile - 1) / tile;
    // Inner > 1: a tile of TILE output columns keeps its running best values and their indices
    // (`best`, `arg`); each step over the reduced dim is a unit-stride, vectorisable compare.
    // inner == 1 (reducing the last dim): one contiguous scan per output element.
    #pragma omp parallel if (xc.numel() >= min_parallel)
    {
        std::vector<float> best(tile);
        std::vector<int64_t> arg(tile);
        #pragma omp for collapse(2) schedule(static)
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t t = 0; t < tiles; ++t) {
                const int64_t j0 = t * tile, len = std::min(tile, inner - j0);
                const float* xo = src + o * red * inner + j0;
                int64_t* out = dst + o * inner + j0;
                float* bv = best.data();
                int64_t* ai = arg.data();
                for (int64_t j = 0; j < len; ++j) { bv[j] = xo[j]; ai[j] = 0; }
                for (int64_t r = 1; r < red; ++r) {
                    const float* xr = xo + r * inner;
                    #pragma omp simd
                    for (int64_t j = 0; j < len; ++j) {
                        const bool better = xr[j] > bv[j];  // strict: ties keep the first index
                        bv[j] = better ? xr[j] : bv[j];
                        ai[j] = better ? r : ai[j];
                    }
                }
                for (int64_t j = 0; j < len; ++j) out[j] = ai[j];
            }
        }
    }
    return y;
}
"""

_ext = load_inline(
    name="akg_seed_argmax_cpu",
    cpp_sources=CPP_SOURCE,
    functions=["argmax_forward"],
    extra_cflags=["-O3", "-march=native", "-fopenmp"],
    extra_ldflags=["-fopenmp"],
    no_implicit_headers=True,
)


class ModelNew(nn.Module):
    """Argmax over dimension ``dim``, computed by the C++ kernel above."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the int64 index of the first maximum over dim (dim removed) (float32 CPU input)."""
        return _ext.argmax_forward(x, self.dim, TILE, MIN_PARALLEL_ELEMENTS)
