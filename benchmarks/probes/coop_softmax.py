"""Probe: softmax over dim 1 with C programs per row, a persistent grid of G programs, a per-row
barrier (atomic counter), the second read of a chunk served from L2."""
import torch
import triton
import triton.language as tl

P_C = 12
P_G = 0
P_BLOCK = 4096
P_NUM_WARPS = 16


@triton.jit
def _k(x_ptr, y_ptr, pm_ptr, ps_ptr, cnt_ptr, ROWS, L, CHUNK, C: tl.constexpr, G: tl.constexpr,
       BLOCK: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    for item in range(pid, ROWS * C, G):
        row = item // C
        c = item % C
        base = tl.cast(row, tl.int64) * L
        lo = c * CHUNK
        hi = tl.minimum(lo + CHUNK, L)
        mx = tl.full([BLOCK], float("-inf"), tl.float32)
        sm = tl.zeros([BLOCK], dtype=tl.float32)
        for s in range(lo, hi, BLOCK):
            pos = s + offs
            v = tl.load(x_ptr + base + pos, mask=pos < hi, other=float("-inf"))
            mn = tl.maximum(mx, v)
            sm = sm * tl.where(mx == mn, 1.0, tl.exp(mx - mn)) + tl.where(mn == float("-inf"), 0.0, tl.exp(v - mn))
            mx = mn
        m = tl.max(mx, axis=0)
        ssum = tl.sum(tl.where(mx == float("-inf"), 0.0, sm * tl.exp(mx - m)), axis=0)
        if C > 1:
            tl.store(pm_ptr + item, m)
            tl.store(ps_ptr + item, ssum)
            tl.atomic_add(cnt_ptr + row, 1, sem="release")
            n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
            while n < C:
                n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
            cs = tl.arange(0, BC)
            pm = tl.load(pm_ptr + row * C + cs, mask=cs < C, other=float("-inf"), cache_modifier=".cg")
            ps = tl.load(ps_ptr + row * C + cs, mask=cs < C, other=0.0, cache_modifier=".cg")
            m = tl.max(pm, axis=0)
            ssum = tl.sum(tl.where(pm == float("-inf"), 0.0, ps * tl.exp(pm - m)), axis=0)
        inv = 1.0 / ssum
        for s in range(lo, hi, BLOCK):
            pos = s + offs
            msk = pos < hi
            v = tl.load(x_ptr + base + pos, mask=msk, other=0.0)
            tl.store(y_ptr + base + pos, tl.exp(v - m) * inv, mask=msk)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        rows, L = x.shape
        y = torch.empty_like(x)
        C = P_C
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        G = P_G or sms
        G = min(max(C, G // C * C), rows * C)
        chunk = (L + C - 1) // C
        pm = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        ps = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        cnt = torch.zeros(rows, device=x.device, dtype=torch.int32)
        _k[(G,)](x, y, pm, ps, cnt, rows, L, chunk, C=C, G=G, BLOCK=P_BLOCK,
                 BC=triton.next_power_of_2(C), num_warps=P_NUM_WARPS)
        return y
