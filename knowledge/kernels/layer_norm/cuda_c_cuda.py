"""LayerNorm over the trailing dims with an elementwise affine, as a CUDA-C kernel.

The input is viewed as (rows, D) with D = prod(normalized_shape). One block per row, in three passes
rather than one sum of x and x*x, because E[x^2] - E[x]^2 cancels catastrophically when
|mean| >> std: pass 1 computes the mean, pass 2 the biased variance of
(x - mean), pass 3 writes (x - mean) * rstd * weight + bias. Block reductions use warp shuffles
and one shared-memory stage.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

THREADS = 512  # threads per block = per row (tunable: 128-1024, multiple of 32)

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// Sum of v over the whole block; every thread gets the result.
__device__ float block_sum(float v, float* scratch) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    const int nwarps = (blockDim.x + 31) >> 5;
    v = (threadIdx.x < nwarps) ? scratch[threadIdx.x] : 0.f;
    if (warp == 0) {
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
        if (lane == 0) scratch[0] = v;
    }
    __syncthreads();
    const float total = scratch[0];
    __syncthreads();  // scratch is reused by the next reduction
    return total;
}

__global__ void layer_norm_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                  const float* __restrict__ b, float* __restrict__ y,
                                  int64_t d, float eps) {
    __shared__ float scratch[32];
    const float* row = x + blockIdx.x * d;
    float* out = y + blockIdx.x * d;
    float acc = 0.f;
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) acc += row[j];
    const float mean = block_sum(acc, scratch) / (float)d;
    acc = 0.f;
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) { const float c = row[j] - mean; acc += c * c; }
    const float rstd = rsqrtf(block_sum(acc, scratch) / (float)d + eps);
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x) out[j] = (row[j] - mean) * rstd * w[j] + b[j];
}

torch::Tensor layer_norm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps, int64_t threads) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "layer_norm_forward: CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "layer_norm_forward: x must be float32");
    const int64_t d = w.numel();
    TORCH_CHECK(d > 0 && x.numel() % d == 0, "layer_norm_forward: trailing dims must match the weight");
    auto xc = x.contiguous();
    auto wc = w.contiguous(), bc = b.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t rows = xc.numel() / d;
    if (rows == 0) return y;
    layer_norm_kernel<<<rows, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), d, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

CPP_SOURCE = "torch::Tensor layer_norm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps, int64_t threads);"

_ext = load_inline(
    name="akg_seed_layer_norm_cuda",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["layer_norm_forward"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    """LayerNorm with affine parameters, computed by the CUDA kernel above."""

    def __init__(self, normalized_shape: tuple):
        super().__init__()
        # Same parameter creation, in the same order, as the reference: identical weights per seed.
        self.ln = nn.LayerNorm(normalized_shape)
        with torch.no_grad():
            self.ln.weight.add_(0.1 * torch.randn(normalized_shape))
            self.ln.bias.add_(0.1 * torch.randn(normalized_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the normalised tensor: same shape as x."""
        return _ext.layer_norm_forward(x, self.ln.weight, self.ln.bias, self.ln.eps, THREADS)
