"""Probe: a stride-1 1-D max pool (level1/41's family: x [B, C, L], K taps at dilation D,
padding) whose programs also ask L2 for the input of the program ``P_DIST`` ids ahead
(``prefetch.global.L2``, one address a 128-byte line), so that DRAM reads are in flight without
holding registers.

The question: the window rows run the same time on an H100 and an H200 (they reach ~90% of the
H100's copy rate and ~60% of the H200's); each of their programs holds every tap's values in
registers (K copies of the same input), so the bytes a multiprocessor has in flight are bounded by
its register file over K. If that is what holds them on the H200, a prefetch a few waves ahead
should lift them there and change nothing on the H100.

    knob_sweep.py level1/41_Max_Pooling_1D.py benchmarks/probes/window_prefetch.py \
        --set P_PREFETCH=0,1 --set P_DIST=512,1024,2048 --set P_BW=512,1024

P_PREFETCH=0 is the plain form (the lowering's interior/edge split, tap loads hoisted by the
compiler). ``P_SERIAL=1`` asks the other way round: each interior tap's load waits for the previous
tap's value (an opaque zero added to its address), so a thread holds one tap at a time and a
larger ``P_BW`` costs few registers -- more programs, or wider tiles, in flight per multiprocessor.
"""
import sys
from pathlib import Path

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from l2_prefetch import prefetch_l2  # noqa: E402
from pool1d_probe import Pool1dProbe  # noqa: E402

P_BW = 512
P_NUM_WARPS = 4
P_PREFETCH = 1
P_DIST = 1024
P_SERIAL = 0


@triton.jit
def _after(v):
    """0, computed from ``v`` in a way the compiler cannot see through: an address offset by it
    is only known once ``v`` is, so the next tap's load is issued after this one has arrived."""
    return tl.inline_asm_elementwise("mov.u32 $0, 0;", "=r,r", [v.to(tl.int32, bitcast=True)],
                                     dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def _k(x_ptr, y_ptr, L, LOUT, NB, TOTAL, K: tl.constexpr, DIL: tl.constexpr, PAD: tl.constexpr, BW: tl.constexpr,
       PREFETCH: tl.constexpr, DIST: tl.constexpr, SPAN_LINES: tl.constexpr, SERIAL: tl.constexpr):
    pid = tl.program_id(0)
    if PREFETCH:
        ahead = pid + DIST
        if ahead < TOTAL:
            arow = ahead // NB
            ablk = ahead % NB
            lines = tl.arange(0, SPAN_LINES) * 32
            start = ablk * BW - PAD
            pm = (start + lines < L) & (start + lines >= 0)
            addr = x_ptr + tl.cast(arow, tl.int64) * L + start + tl.where(pm, lines, 0)
            prefetch_l2(addr)
    row = pid // NB
    blk = pid % NB
    offs = blk * BW + tl.arange(0, BW)
    m = offs < LOUT
    base = x_ptr + tl.cast(row, tl.int64) * L
    acc = tl.full((BW,), float("-inf"), tl.float32)
    lo = blk * BW - PAD
    if (lo >= 0) & (lo + BW + (K - 1) * DIL <= L) & (blk * BW + BW <= LOUT):  # interior: no masks
        if SERIAL:
            dep = tl.zeros((BW,), tl.int32)
            for t in tl.static_range(K):
                acc = tl.maximum(acc, tl.load(base + offs - PAD + t * DIL + dep))
                dep = _after(acc)
        else:
            for t in tl.static_range(K):
                acc = tl.maximum(acc, tl.load(base + offs - PAD + t * DIL))
    else:
        for t in tl.static_range(K):
            idx = offs - PAD + t * DIL
            v = tl.load(base + idx, mask=m & (idx >= 0) & (idx < L), other=float("-inf"))
            acc = tl.maximum(acc, v)
    tl.store(y_ptr + tl.cast(row, tl.int64) * LOUT + offs, acc, mask=m)


class ModelNew(Pool1dProbe):
    def forward(self, x):
        B, C, L = x.shape
        y, lout = self.output(x)
        nb = triton.cdiv(lout, P_BW)
        total = B * C * nb
        span = P_BW + self.d * (self.k - 1)
        _k[(total,)](x, y, L, lout, nb, total, K=self.k, DIL=self.d, PAD=self.p, BW=P_BW, PREFETCH=P_PREFETCH,
                     DIST=P_DIST, SERIAL=P_SERIAL, SPAN_LINES=triton.next_power_of_2(triton.cdiv(span, 32)),
                     num_warps=P_NUM_WARPS)
        return y
