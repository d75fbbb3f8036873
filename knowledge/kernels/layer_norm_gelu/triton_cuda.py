"""gelu(layer_norm(x)) over the last dimension, fused in one Triton kernel (one program per row).

Three sweeps over the row in BLOCK_N chunks: the sum (mean), the centred sum of squares (variance,
without E[x^2] - E[x]^2 cancellation), then normalise, apply the affine weight and bias and the
exact erf GELU. The row is re-read from L2, never written in between; any row length works.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tunables (H200: a 4096-wide row is 4 chunks; one program per row keeps 4096 rows in flight).
BLOCK_N = 1024  # columns per chunk
NUM_WARPS = 4


@triton.jit
def layer_norm_gelu_kernel(
    x_ptr,  # input (M, N) fp32, contiguous
    w_ptr,  # LayerNorm weight (N,) fp32
    b_ptr,  # LayerNorm bias (N,) fp32
    y_ptr,  # output (M, N) fp32, contiguous
    N,  # row length
    eps,  # added to the variance
    BLOCK_N: tl.constexpr,  # columns per chunk
):
    """One row: y = gelu((x - mean) * rstd * w + b)."""
    row = tl.program_id(0).to(tl.int64) * N  # int64: M * N can pass 2**31
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + row + cols, mask=cols < N, other=0.0)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row + cols, mask=cols < N, other=0.0)
        diff = tl.where(cols < N, x - mean, 0.0)
        acc += diff * diff
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        live = cols < N
        x = tl.load(x_ptr + row + cols, mask=live, other=0.0)
        w = tl.load(w_ptr + cols, mask=live, other=0.0)
        b = tl.load(b_ptr + cols, mask=live, other=0.0)
        h = (x - mean) * rstd * w + b
        y = 0.5 * h * (1.0 + tl.math.erf(h * 0.7071067811865476))  # h * Phi(h)
        tl.store(y_ptr + row + cols, y, mask=live)


def layer_norm_gelu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                    eps: float) -> torch.Tensor:
    """gelu(layer_norm(x, (N,), weight, bias, eps)) for float32 x (..., N)."""
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t.dtype != torch.float32:
            raise TypeError(f"layer_norm_gelu: {name} must be float32, got {t.dtype}")
    N = x.shape[-1]
    if weight.shape != (N,) or bias.shape != (N,):
        raise ValueError(f"layer_norm_gelu: weight and bias must be ({N},), got "
                         f"{tuple(weight.shape)} and {tuple(bias.shape)}")
    x = x.contiguous()
    y = torch.empty_like(x)
    M = x.numel() // N
    layer_norm_gelu_kernel[(M,)](
        x, weight.contiguous(), bias.contiguous(), y, N, float(eps),
        BLOCK_N=BLOCK_N, num_warps=NUM_WARPS,
    )
    return y


class ModelNew(nn.Module):
    """LayerNorm + GELU through the fused Triton kernel; nn.LayerNorm holds weight and bias."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return layer_norm_gelu(x, self.norm.weight, self.norm.bias, self.norm.eps)
