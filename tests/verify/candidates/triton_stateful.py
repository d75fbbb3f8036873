"""Correct Triton candidate for counter: the kernel bumps the call counter and scales by it.

The judge calls the candidate more often than the reference (timing, attribution): each checked
forward must start from the state both models were built with, or a correct stateful candidate
would be judged wrong after timing.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def count_scale_kernel(x_ptr, c_ptr, y_ptr, numel, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    calls = tl.load(c_ptr) + 1.0
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * calls, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        BLOCK = 1024
        count_scale_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, self.calls, y, x.numel(), BLOCK=BLOCK)
        self.calls.add_(1)
        return y
