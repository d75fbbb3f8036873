"""Partial Triton candidate for rowscale_const: torch multiplies, the kernel subtracts and clamps, and
the result is all zeros (a legitimate kernel of a constant function, beside torch compute)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def shift_relu_kernel(t_ptr, y_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(t - 1e4, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = (x * self.weight).contiguous()
        y = torch.empty_like(t)
        BLOCK = 1024
        shift_relu_kernel[(triton.cdiv(t.numel(), BLOCK),)](t, y, t.numel(), BLOCK=BLOCK)
        return y
