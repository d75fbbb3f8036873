"""Probe: a stride-1 1-D max pool (level1/41's family: x [B, C, L], K taps at dilation D,
padding) in which each thread loads the input span of its four outputs once, as aligned 16-byte
vectors, and forms every tap from those registers (``tl.split`` / ``tl.join``: no shared memory).

The question: why 41 (8 taps at dilation 3) runs 1.4x longer an output than 44 (8 taps at
dilation 1) on both GPUs with the same PTX. In the lowered form each tap is its own global load of
four consecutive elements a thread, split into scalar and 8-byte pieces where the tap's offset is
not a multiple of four; ptxas merges the pieces two taps share, which at dilation 1 is most of
them (a thread needs 11 distinct elements) and at dilation 3 few (25 distinct elements, ~38 loads
in SASS). Here a thread's span is ``ceil((s + 3 + (K - 1) D + 1) / 4)`` vector loads (7 for 41),
every element once, and the L1 requests a warp makes drop about fourfold.

    knob_sweep.py level1/41_Max_Pooling_1D.py benchmarks/probes/window_regs.py \
        --set P_R=128,256 --set P_NUM_WARPS=4,8

``P_R`` rows of four outputs a program (a program covers ``4 P_R`` outputs of one row of x).
"""
import sys
from pathlib import Path

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pool1d_probe import Pool1dProbe  # noqa: E402

P_R = 128
P_NUM_WARPS = 4


@triton.jit
def _cols(x):
    """The four columns of an [R, 4] tensor, as [R] tensors (registers: split twice)."""
    a, b = tl.split(tl.reshape(x, (x.shape[0], 2, 2)))
    c0, c2 = tl.split(a)
    c1, c3 = tl.split(b)
    return c0, c1, c2, c3


@triton.jit
def _k(x_ptr, y_ptr, L, LOUT, NB, K: tl.constexpr, DIL: tl.constexpr, PAD: tl.constexpr, R: tl.constexpr,
       G: tl.constexpr, S: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // NB
    blk = pid % NB
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, 4)[None, :]
    base = x_ptr + tl.cast(row, tl.int64) * L
    a0 = blk * (4 * R) - PAD - S          # a multiple of 4: every group below is 16-byte aligned
    interior = (a0 >= 0) & (a0 + 4 * R + 4 * G <= L)
    span = ()
    for g in tl.static_range(G):
        idx = a0 + 4 * r + 4 * g + c
        if interior:
            v = tl.load(base + idx)
        else:
            v = tl.load(base + idx, mask=(idx >= 0) & (idx < L), other=float("-inf"))
        c0, c1, c2, c3 = _cols(v)
        span = span + (c0, c1, c2, c3)
    o0 = span[S]
    o1 = span[S + 1]
    o2 = span[S + 2]
    o3 = span[S + 3]
    for t in tl.static_range(1, K):
        o0 = tl.maximum(o0, span[S + t * DIL])
        o1 = tl.maximum(o1, span[S + 1 + t * DIL])
        o2 = tl.maximum(o2, span[S + 2 + t * DIL])
        o3 = tl.maximum(o3, span[S + 3 + t * DIL])
    out = tl.reshape(tl.join(tl.join(o0, o2), tl.join(o1, o3)), (R, 4))
    oidx = blk * (4 * R) + 4 * r + c
    tl.store(y_ptr + tl.cast(row, tl.int64) * LOUT + oidx, out, mask=oidx < LOUT)


class ModelNew(Pool1dProbe):
    def forward(self, x):
        B, C, L = x.shape
        y, lout = self.output(x)
        s = (-self.p) % 4                  # span index of a thread's first output's first tap
        g = -(-(s + 3 + (self.k - 1) * self.d + 1) // 4)
        nb = triton.cdiv(lout, 4 * P_R)
        _k[(B * C * nb,)](x, y, L, lout, nb, K=self.k, DIL=self.d, PAD=self.p, R=P_R, G=g, S=s,
                          num_warps=P_NUM_WARPS)
        return y
