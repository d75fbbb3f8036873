"""Correct and partial (torch computes x * w), the kernel's ReLU written into one of two buffers
it alternates between.

The judge's launch classifier fingerprints a launch's tensors before and after it: a buffer that
already holds the values the kernel writes looks unwritten, and a forward of unwritten launches
beside torch's compute is guard ``no_work``. Here the forward the classifier watches gets the
buffer of the call two before it; had that call drawn the same inputs (the first correctness
trial's), the kernel would rewrite the very same values and look like it did nothing. A stale
block of the caching allocator is the same situation without the alternation.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))
        self.buffers_ = []
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = (x * self.weight).contiguous()
        if len(self.buffers_) < 2 or self.buffers_[0].shape != t.shape:
            self.buffers_ = [torch.empty_like(t), torch.empty_like(t)]
        y = self.buffers_[self.calls % 2]
        self.calls += 1
        relu_kernel[(triton.cdiv(t.numel(), 1024),)](t, y, t.numel(), BLOCK=1024)
        return y
