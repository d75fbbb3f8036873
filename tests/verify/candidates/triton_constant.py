"""Correct Triton candidate for rowscale_const: the whole computation in the kernel, whose output is all zeros."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowscale_kernel(x_ptr, w_ptr, y_ptr, numel, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + offs % n_cols, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x * w - 1e4, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        BLOCK = 1024
        rowscale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, self.weight, y, x.numel(), x.shape[-1], BLOCK=BLOCK)
        return y
