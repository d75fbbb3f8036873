"""Probe: row-normalisation with C programs per row, a persistent grid of G programs, a per-row
barrier (atomic counter), the second read of a chunk served from L2. x / mean(|x|, dim=1)."""
import torch
import triton
import triton.language as tl

P_C = 2
P_G = 0          # 0: one program per SM
P_BLOCK = 4096
P_NUM_WARPS = 16


@triton.jit
def _k(x_ptr, y_ptr, part_ptr, cnt_ptr, ROWS, L, CHUNK, C: tl.constexpr, G: tl.constexpr,
       BLOCK: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    for item in range(pid, ROWS * C, G):
        row = item // C
        c = item % C
        base = tl.cast(row, tl.int64) * L
        lo = c * CHUNK
        hi = tl.minimum(lo + CHUNK, L)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for s in range(lo, hi, BLOCK):
            pos = s + offs
            v = tl.load(x_ptr + base + pos, mask=pos < hi, other=0.0)
            acc += tl.abs(v)
        tot = tl.sum(acc, axis=0)
        if C > 1:
            tl.store(part_ptr + item, tot)
            tl.atomic_add(cnt_ptr + row, 1, sem="release")
            n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
            while n < C:
                n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
            cs = tl.arange(0, BC)
            pv = tl.load(part_ptr + row * C + cs, mask=cs < C, other=0.0, cache_modifier=".cg")
            tot = tl.sum(pv, axis=0)
        inv = L / tot
        for s in range(lo, hi, BLOCK):
            pos = s + offs
            m = pos < hi
            v = tl.load(x_ptr + base + pos, mask=m, other=0.0)
            tl.store(y_ptr + base + pos, v * inv, mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        rows, L = x.shape
        y = torch.empty_like(x)
        C = P_C
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        G = P_G or sms
        G = max(C, G // C * C)
        chunk = (L + C - 1) // C
        part = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        cnt = torch.zeros(rows, device=x.device, dtype=torch.int32)
        _k[(min(G, rows * C),)](x, y, part, cnt, rows, L, chunk, C=C, G=min(G, rows * C), BLOCK=P_BLOCK,
                                BC=triton.next_power_of_2(C), num_warps=P_NUM_WARPS)
        return y
