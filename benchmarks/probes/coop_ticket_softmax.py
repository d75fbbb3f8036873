"""Probe: softmax over dim 1 in the form of coop_ticket_l1.py: chunks of P_CHUNK elements held in
registers, each chunk's max and sum of exponentials combined after a per-row barrier, one read of
the row from DRAM."""
import torch
import triton
import triton.language as tl

P_CHUNK = 8192
P_NUM_WARPS = 8
P_TICKET = 1


@triton.jit
def _k(x_ptr, y_ptr, pm_ptr, ps_ptr, cnt_ptr, ticket_ptr, L, C: tl.constexpr, CHUNK: tl.constexpr,
       BC: tl.constexpr, TICKET: tl.constexpr):
    if TICKET:
        t = tl.atomic_add(ticket_ptr, 1)
    else:
        t = tl.program_id(0)
    row = t // C
    c = t % C
    base = tl.cast(row, tl.int64) * L
    offs = c * CHUNK + tl.arange(0, CHUNK)
    msk = offs < L
    v = tl.load(x_ptr + base + offs, mask=msk, other=float("-inf"))
    m = tl.max(v, axis=0)
    s = tl.sum(tl.exp(v - m), axis=0)
    if C > 1:
        tl.store(pm_ptr + t, m)
        tl.store(ps_ptr + t, s)
        tl.atomic_add(cnt_ptr + row, 1, sem="release")
        n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
        while n < C:
            n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
        cs = tl.arange(0, BC)
        pm = tl.load(pm_ptr + row * C + cs, mask=cs < C, other=float("-inf"), cache_modifier=".cg")
        ps = tl.load(ps_ptr + row * C + cs, mask=cs < C, other=0.0, cache_modifier=".cg")
        m = tl.max(pm, axis=0)
        s = tl.sum(tl.where(cs < C, ps * tl.exp(pm - m), 0.0), axis=0)
    tl.store(y_ptr + base + offs, tl.exp(v - m) / s, mask=msk)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        rows, L = x.shape
        y = torch.empty_like(x)
        C = triton.cdiv(L, P_CHUNK)
        pm = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        ps = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        cnt = torch.zeros(rows + 1, device=x.device, dtype=torch.int32)
        _k[(rows * C,)](x, y, pm, ps, cnt, cnt[rows:], L, C=C, CHUNK=P_CHUNK, BC=triton.next_power_of_2(C),
                        TICKET=P_TICKET, num_warps=P_NUM_WARPS)
        return y
