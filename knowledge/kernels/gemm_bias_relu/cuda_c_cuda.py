"""Linear + ReLU, y = relu(x @ W.T + b), as one CUDA-C kernel: a tiled SGEMM with a fused epilogue.

Each 256-thread block computes a BM x BN = 64 x 64 tile of C; each thread owns a 4 x 4 register
sub-tile, so every value loaded from shared memory feeds 4 FMAs. The K loop steps by BK = 16:
the block stages a 64 x 16 slab of A (stored transposed so the inner loop reads contiguous
columns) and a 16 x 64 slab of B in shared memory. Out-of-range rows/columns load zeros, so any
N works. Plain fp32 FMA (no TF32), matching PyTorch's default fp32 matmul precision. W is
nn.Linear's (out, in) weight: its tile is read along K, so the loads stay coalesced without a
transposed copy. Bias and ReLU are applied in registers before the single store of y.
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;  // 256 threads = (BM/TM) * (BN/TN)

// C[M, N] = relu(A[M, K] @ W[N, K]^T + bias[N]), all row-major contiguous fp32.
__global__ void __launch_bounds__(256) linear_relu_kernel(const float* __restrict__ A, const float* __restrict__ W,
                                                          const float* __restrict__ bias, float* __restrict__ C,
                                                          int M, int N, int K) {
    __shared__ float As[BK][BM];   // A tile, transposed: As[k][m]
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // 64 x 16 = 1024 A values and 16 x 64 B values: 4 of each per thread.
        for (int i = tid; i < BM * BK; i += 256) {
            const int m = i / BK, k = i % BK;
            const int gm = row0 + m, gk = k0 + k;
            As[k][m] = (gm < M && gk < K) ? A[(int64_t)gm * K + gk] : 0.f;
        }
        for (int i = tid; i < BK * BN; i += 256) {
            const int n = i / BK, k = i % BK;   // consecutive threads read consecutive k of one W row
            const int gk = k0 + k, gn = col0 + n;
            Bs[k][n] = (gk < K && gn < N) ? W[(int64_t)gn * K + gk] : 0.f;
        }
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            #pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
            #pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int gm = row0 + ty * TM + i;
        if (gm >= M) continue;
        #pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int gn = col0 + tx * TN + j;
            if (gn < N) C[(int64_t)gm * N + gn] = fmaxf(acc[i][j] + bias[gn], 0.f);
        }
    }
}

torch::Tensor linear_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && bias.is_cuda(), "linear_relu_forward: CUDA tensors expected");
    TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && x.size(1) == w.size(1) && bias.numel() == w.size(0),
                "linear_relu_forward: shapes x (M,K), W (N,K), b (N) expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32, "linear_relu_forward: float32 expected");
    TORCH_CHECK(x.size(0) < INT32_MAX && x.size(1) < INT32_MAX && w.size(0) < INT32_MAX, "linear_relu_forward: dims must fit int32");
    auto xc = x.contiguous(), wc = w.contiguous(), bc = bias.contiguous();
    const int M = xc.size(0), K = xc.size(1), N = wc.size(0);
    auto c = torch::empty({M, N}, xc.options());
    if (M == 0 || N == 0) return c;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    linear_relu_kernel<<<grid, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), c.data_ptr<float>(), M, N, K);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return c;
}
"""

CPP_SOURCE = "torch::Tensor linear_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias);"

_ext = load_inline(
    name="akg_seed_gemm_bias_relu_cuda",
    cpp_sources=CPP_SOURCE,
    cuda_sources=CUDA_SOURCE,
    functions=["linear_relu_forward"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    """Linear + ReLU through the fused CUDA kernel above; nn.Linear holds the parameters."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return relu(x @ W.T + b)."""
        return _ext.linear_relu_forward(x, self.linear.weight, self.linear.bias)
