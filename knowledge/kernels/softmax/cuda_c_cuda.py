"""Row-wise softmax (dim=1 of a 2-D float32 tensor) as a CUDA-C kernel.

One block per row. Pass 1 keeps, per thread, an online (running max m, running sum s of exp(x - m))
pair over a strided slice of the row, then merges the pairs across the block with warp shuffles
and a shared-memory stage; pass 2 writes exp(x - m) / s. The row is read twice and written once;
a second read of a 64 KB row mostly hits L2.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

THREADS = 1024  # threads per block = per row (tunable: 128-1024, multiple of 32)

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cfloat>

// Merge two (max, sum-of-exp) pairs: the result describes the union of both slices.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float mn = fmaxf(m, m2);
    // exp(-inf - -inf) would be NaN: a pair with m == -inf contributes nothing.
    s = (m == -FLT_MAX ? 0.f : s * expf(m - mn)) + (m2 == -FLT_MAX ? 0.f : s2 * expf(m2 - mn));
    m = mn;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    const float* row = x + blockIdx.x * cols;
    float* out = y + blockIdx.x * cols;
    float m = -FLT_MAX, s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = row[j];
        if (v > m) { s = s * expf(m - v) + 1.f; m = v; } else { s += expf(v - m); }
    }
    // Warp-level merge.
    for (int off = 16; off > 0; off >>= 1) {
        const float m2 = __shfl_down_sync(0xffffffff, m, off);
        const float s2 = __shfl_down_sync(0xffffffff, s, off);
        merge(m, s, m2, s2);
    }
    __shared__ float sm[32], ss[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        m = lane < nwarps ? sm[lane] : -FLT_MAX;
        s = lane < nwarps ? ss[lane] : 0.f;
        for (int off = 16; off > 0; off >>= 1) {
            const float m2 = __shfl_down_sync(0xffffffff, m, off);
            const float s2 = __shfl_down_sync(0xffffffff, s, off);
            merge(m, s, m2, s2);
        }
        if (lane == 0) { sm[0] = m; ss[0] = s; }
    }
    __syncthreads();
    const float row_max = sm[0];
    const float inv_sum = 1.f / ss[0];
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        out[j] = expf(row[j] - row_max) * inv_sum;
    }
}

torch::Tensor softmax_forward(torch::Tensor x, int64_t threads) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "softmax_forward: x must be a 2-D CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "softmax_forward: x must be float32");
    TORCH_CHECK(threads % 32 == 0 && threads <= 1024, "softmax_forward: threads must be a multiple of 32 <= 1024");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t rows = xc.size(0), cols = xc.size(1);
    if (rows == 0 || cols == 0) return y;
    softmax_rows_kernel<<<rows, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

CPP_SOURCE = "torch::Tensor softmax_forward(torch::Tensor x, int64_t threads);"

_ext = load_inline(
    name="akg_seed_softmax_cuda",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["softmax_forward"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    """Softmax over dim 1 computed by the CUDA kernel above."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return softmax(x, dim=1): same shape as x."""
        return _ext.softmax_forward(x, THREADS)
