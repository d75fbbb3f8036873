"""Probe: a stride-1 1-D max pool (level1/41's family: x [B, C, L], K taps at dilation D,
padding) whose programs read their input span from global memory once and form the taps from it
on chip (``tl.gather`` along the span), instead of one shifted global load a tap.

The question: the window rows run the same time on an H100 and an H200, so what holds them is on
the chip, not in DRAM. Each tap of the lowered form is a global load shifted by ``t * D`` elements:
most taps are not 16-byte aligned, so they are split into scalar loads, and every one of them goes
through L1 again. Read once, the span is one aligned vector load a thread; the taps then come from
registers and shared memory. If L1 request throughput is what binds, ``P_GATHER=1`` is faster on
both GPUs.

    knob_sweep.py level1/41_Max_Pooling_1D.py benchmarks/probes/window_gather.py \
        --set P_GATHER=0,1 --set P_SPAN=512,1024,2048 --set P_NUM_WARPS=4,8

A program covers ``P_SPAN - halo`` outputs (the halo, ``(K - 1) * D`` rounded up to 4 elements,
keeps every span 16-byte aligned); ``P_GATHER=0`` runs the same tiling with one global load a tap.
"""
import sys
from pathlib import Path

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pool1d_probe import Pool1dProbe  # noqa: E402

P_SPAN = 1024
P_NUM_WARPS = 4
P_GATHER = 1


@triton.jit
def _k(x_ptr, y_ptr, L, LOUT, NB, K: tl.constexpr, DIL: tl.constexpr, PAD: tl.constexpr,
       SPAN: tl.constexpr, HALO: tl.constexpr, GATHER: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // NB
    blk = pid % NB
    BWO: tl.constexpr = SPAN - HALO
    s = tl.arange(0, SPAN)
    out = blk * BWO + s
    om = (s < BWO) & (out < LOUT)
    base = x_ptr + tl.cast(row, tl.int64) * L
    lo = blk * BWO - PAD
    acc = tl.full((SPAN,), float("-inf"), tl.float32)
    if GATHER:
        idx = lo + s
        xs = tl.load(base + idx, mask=(idx >= 0) & (idx < L), other=float("-inf"))
        for t in tl.static_range(K):
            tap = tl.minimum(s + t * DIL, SPAN - 1)
            acc = tl.maximum(acc, tl.gather(xs, tap, 0))
    else:
        for t in tl.static_range(K):
            idx = lo + s + t * DIL
            acc = tl.maximum(acc, tl.load(base + idx, mask=om & (idx >= 0) & (idx < L), other=float("-inf")))
    tl.store(y_ptr + tl.cast(row, tl.int64) * LOUT + out, acc, mask=om)


class ModelNew(Pool1dProbe):
    def forward(self, x):
        B, C, L = x.shape
        halo = -(-(self.d * (self.k - 1)) // 4) * 4
        if halo >= P_SPAN:
            raise ValueError(f"P_SPAN {P_SPAN} leaves no outputs after a halo of {halo}")
        y, lout = self.output(x)
        nb = triton.cdiv(lout, P_SPAN - halo)
        _k[(B * C * nb,)](x, y, L, lout, nb, K=self.k, DIL=self.d, PAD=self.p, SPAN=P_SPAN, HALO=halo,
                          GATHER=P_GATHER, num_warps=P_NUM_WARPS)
        return y
