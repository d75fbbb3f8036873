"""Correct candidate for tasks/tanh_dropout.py that keeps dropout as a torch call: a Triton kernel
computes tanh(x * w), torch drops out, a second kernel adds the residual. It matches only because the
verifier reseeds the generators alike before the reference's and the candidate's forward calls.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def tanh_scale_kernel(x_ptr, w_ptr, y_ptr, numel, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)   # flat element index of this block
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + offs % n_cols, mask=mask)           # per-column weight
    z = x * w
    e = tl.exp(-2.0 * tl.abs(z))                              # tanh through exp, stable for large |z|
    t = (1.0 - e) / (1.0 + e)
    tl.store(y_ptr + offs, tl.where(z < 0, -t, t), mask=mask)


@triton.jit
def add_kernel(a_ptr, b_ptr, y_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(y_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n, p):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))
        self.p = p

    def forward(self, x):
        x = x.contiguous()
        t = torch.empty_like(x)
        grid = (triton.cdiv(x.numel(), 1024),)
        tanh_scale_kernel[grid](x, self.weight, t, x.numel(), x.shape[-1], BLOCK=1024)
        d = F.dropout(t, self.p, self.training)
        y = torch.empty_like(x)
        add_kernel[grid](d, x, y, x.numel(), BLOCK=1024)
        return y
