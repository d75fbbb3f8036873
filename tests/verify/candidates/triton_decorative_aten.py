"""Guard torch_fallback: a kernel for show whose result is never used; torch computes the answer with
other aten ops than the reference's (clamp_min instead of relu)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def square_kernel(x_ptr, y_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, v * v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x):
        scratch = torch.empty_like(x)
        square_kernel[(triton.cdiv(x.numel(), 1024),)](x, scratch, x.numel(), BLOCK=1024)
        return (x * self.weight).clamp_min(0.0)
