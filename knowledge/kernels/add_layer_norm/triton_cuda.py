"""layer_norm(x + residual) over the last dimension: one fused Triton kernel, one program per row.

Rows up to MAX_ROW_BLOCK wide (`add_layer_norm_row_kernel`): the row of x + residual is loaded
once and stays in registers; its mean, its centred sum of squares (variance without
E[s^2] - E[s]^2 cancellation) and the normalised, affine output come from that one read, so HBM
sees each input once and the output once. Longer rows (`add_layer_norm_kernel`): three sweeps in
BLOCK_N chunks, each forming x + residual on the fly (the re-reads mostly hit L2). The sum is never
written to memory; any row length works.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tunables (H200). A row of up to MAX_ROW_BLOCK floats is held whole: 8192 columns over 16 warps
# is 16 registers per thread per tensor.
MAX_ROW_BLOCK = 8192  # widest row held in registers (power of two)
ROW_WARPS_PER_KCOL = 2  # warps per 1024 columns of the held row (4096 columns: 8 warps)
BLOCK_N = 1024  # columns per chunk of the three-sweep path
NUM_WARPS = 4


@triton.jit
def add_layer_norm_row_kernel(
    x_ptr,  # input (M, N) fp32, contiguous
    r_ptr,  # residual (M, N) fp32, contiguous
    w_ptr,  # LayerNorm weight (N,) fp32
    b_ptr,  # LayerNorm bias (N,) fp32
    y_ptr,  # output (M, N) fp32, contiguous
    N,  # row length, <= BLOCK_N
    eps,  # added to the variance
    BLOCK_N: tl.constexpr,  # power of two >= N: the whole row
):
    """One row held in registers: s = x + residual; y = (s - mean) * rstd * w + b."""
    row = tl.program_id(0).to(tl.int64) * N
    cols = tl.arange(0, BLOCK_N)
    live = cols < N
    s = tl.load(x_ptr + row + cols, mask=live, other=0.0) + tl.load(r_ptr + row + cols, mask=live, other=0.0)
    mean = tl.sum(s, axis=0) / N
    diff = tl.where(live, s - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(diff * diff, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=live, other=0.0)
    b = tl.load(b_ptr + cols, mask=live, other=0.0)
    tl.store(y_ptr + row + cols, diff * rstd * w + b, mask=live)


@triton.jit
def add_layer_norm_kernel(
    x_ptr,  # input (M, N) fp32, contiguous
    r_ptr,  # residual (M, N) fp32, contiguous
    w_ptr,  # LayerNorm weight (N,) fp32
    b_ptr,  # LayerNorm bias (N,) fp32
    y_ptr,  # output (M, N) fp32, contiguous
    N,  # row length
    eps,  # added to the variance
    BLOCK_N: tl.constexpr,  # columns per chunk
):
    """One row: s = x + residual; y = (s - mean) * rstd * w + b."""
    row = tl.program_id(0).to(tl.int64) * N  # int64: M * N can pass 2**31
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        live = cols < N
        x = tl.load(x_ptr + row + cols, mask=live, other=0.0)
        acc += x + tl.load(r_ptr + row + cols, mask=live, other=0.0)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        live = cols < N
        x = tl.load(x_ptr + row + cols, mask=live, other=0.0)
        s = x + tl.load(r_ptr + row + cols, mask=live, other=0.0)
        diff = tl.where(live, s - mean, 0.0)
        acc += diff * diff
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        live = cols < N
        x = tl.load(x_ptr + row + cols, mask=live, other=0.0)
        s = x + tl.load(r_ptr + row + cols, mask=live, other=0.0)
        w = tl.load(w_ptr + cols, mask=live, other=0.0)
        b = tl.load(b_ptr + cols, mask=live, other=0.0)
        tl.store(y_ptr + row + cols, (s - mean) * rstd * w + b, mask=live)


def add_layer_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                   bias: torch.Tensor, eps: float) -> torch.Tensor:
    """layer_norm(x + residual, (N,), weight, bias, eps) for float32 tensors (..., N)."""
    for name, t in (("x", x), ("residual", residual), ("weight", weight), ("bias", bias)):
        if t.dtype != torch.float32:
            raise TypeError(f"add_layer_norm: {name} must be float32, got {t.dtype}")
    if x.shape != residual.shape:
        raise ValueError(f"add_layer_norm: x {tuple(x.shape)} and residual "
                         f"{tuple(residual.shape)} differ")
    N = x.shape[-1]
    if weight.shape != (N,) or bias.shape != (N,):
        raise ValueError(f"add_layer_norm: weight and bias must be ({N},), got "
                         f"{tuple(weight.shape)} and {tuple(bias.shape)}")
    x = x.contiguous()
    residual = residual.contiguous()
    y = torch.empty_like(x)
    M = x.numel() // N
    if M == 0 or N == 0:
        return y
    whole = triton.next_power_of_2(N)
    if whole <= MAX_ROW_BLOCK:
        warps = max(1, min(16, ROW_WARPS_PER_KCOL * whole // 1024))
        add_layer_norm_row_kernel[(M,)](
            x, residual, weight.contiguous(), bias.contiguous(), y, N, float(eps),
            BLOCK_N=whole, num_warps=warps,
        )
    else:
        add_layer_norm_kernel[(M,)](
            x, residual, weight.contiguous(), bias.contiguous(), y, N, float(eps),
            BLOCK_N=BLOCK_N, num_warps=NUM_WARPS,
        )
    return y


class ModelNew(nn.Module):
    """Residual add + LayerNorm through the fused Triton kernel; nn.LayerNorm holds the weights."""

    def __init__(self, hidden_size: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return add_layer_norm(x, residual, self.norm.weight, self.norm.bias, self.norm.eps)
