"""Inclusive prefix product along the last dim of a float32 tensor as a Triton kernel.

One program scans one row: it walks the row in BLOCK_SIZE chunks, scans each chunk in registers
(a parallel tree scan) and combines it with the carry, the product of all earlier chunks
(tl.reduce); masked lanes load 1, the identity. The scan and the carry run in fp64: an
fp32 running product over 4000 elements drifts by up to ~1e-4, as large as the verification
tolerance, while fp64 keeps every prefix correctly rounded when stored as fp32 (the kernel is
memory-bound, so fp64 costs little). Rows of any length work; tails are masked. Grid: (rows,).
The task scans dim 1 of a (batch, length) tensor, its last dim. Runs on CUDA, and on CPU tensors
under TRITON_INTERPRET=1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # elements per chunk (power of two); 1024 / (4 warps * 32 lanes) = 8 per lane
NUM_WARPS = 4


@triton.jit
def _multiply(a, b):
    """Combine function for tl.reduce: the product of two values."""
    return a * b


@triton.jit
def cumprod_kernel(
    x_ptr,  # *fp32: input, contiguous (rows, length)
    y_ptr,  # *fp32: output, contiguous (rows, length)
    length,  # int: elements per row (the scanned dim)
    BLOCK_SIZE: tl.constexpr,  # elements per chunk, a power of two
):
    row = tl.program_id(axis=0).to(tl.int64)  # 64-bit: row * length can pass 2**31
    x_row = x_ptr + row * length
    y_row = y_ptr + row * length
    cols = tl.arange(0, BLOCK_SIZE)
    carry = tl.full([], 1.0, tl.float64)
    for start in range(0, length, BLOCK_SIZE):
        offs = start + cols
        mask = offs < length
        x = tl.load(x_row + offs, mask=mask, other=1.0)
        x = x.to(tl.float64)
        tl.store(y_row + offs, (tl.cumprod(x, axis=0) * carry).to(tl.float32), mask=mask)
        carry *= tl.reduce(x, 0, _multiply)


def cumprod_last_dim(x: torch.Tensor) -> torch.Tensor:
    """Inclusive prefix product along the last dim of a contiguous float32 tensor, on its device."""
    if x.dtype != torch.float32:
        raise TypeError(f"cumprod_last_dim: expected float32 input, got {x.dtype}")
    if x.dim() == 0:
        raise ValueError("cumprod_last_dim: expected at least one dim")
    if not x.is_contiguous():
        raise ValueError("cumprod_last_dim: input must be contiguous; call .contiguous() first")
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y
    length = x.shape[-1]
    rows = x.numel() // length
    cumprod_kernel[(rows,)](x, y, length, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
    return y


class ModelNew(nn.Module):
    """Inclusive prefix product along ``dim`` (the last dim), computed by the Triton kernel above."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return torch.cumprod(x, dim=self.dim): same shape."""
        if self.dim % x.dim() != x.dim() - 1:
            raise ValueError(f"cumprod kernel scans the last dim only, got dim={self.dim} of a {x.dim()}-D tensor")
        return cumprod_last_dim(x)
