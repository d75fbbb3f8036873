"""Timeout: a grandchild escapes into its own session and sleeps; the parent spins.

The grandchild writes its pid to PID_FILE so the test can check it was killed.

Run with static guards off: the run-time hooks must catch it on their own.
"""

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
    tl.store(y_ptr + offs, tl.maximum(x * w, 0.0), mask=mask)


def launch(x, w, y):
    rowscale_kernel[(triton.cdiv(x.numel(), 1024),)](x, w, y, x.numel(), x.shape[-1], BLOCK=1024)


class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def kernel(self, x):
        y = torch.empty_like(x)
        launch(x, self.weight, y)
        return y


import os
import posix



class ModelNew(Base):
    def forward(self, x):
        y = self.kernel(x)
        if posix.fork() == 0:
            os.setsid()
            posix.execv("/bin/sh", ["sh", "-c", "sleep 1000; : @MARKER@"])
        while True:
            pass
