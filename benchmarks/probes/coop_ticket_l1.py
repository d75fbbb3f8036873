"""Probe: x / mean(|x|, dim=1) with each row cut into C chunks of P_CHUNK elements, one program a
chunk in an ordinary grid (many programs per SM), the chunk held in registers between the two
halves, and a per-row barrier on an atomic counter: the row is read from DRAM once. A program's
row and chunk come from a ticket (an atomic counter bumped at start, P_TICKET=1), so it only ever
waits on programs that have already started; P_TICKET=0 uses the program id.

P_ALIGN=1 (for rows whose length is not a multiple of 4, level1/38's 65535: their starts are not
16-byte aligned, so with P_ALIGN=0 no load or store can be a vector): a row's chunk grid starts at
the 16-byte boundary at or before the row (one more chunk where the shift needs it); chunks wholly
inside the row load and store unmasked from an address the compiler can prove aligned, the first
and last ones masked to the row."""
import torch
import triton
import triton.language as tl

P_CHUNK = 8192
P_NUM_WARPS = 8
P_TICKET = 1
P_ALIGN = 0


@triton.jit
def _k(x_ptr, y_ptr, part_ptr, cnt_ptr, ticket_ptr, L, C: tl.constexpr, CHUNK: tl.constexpr,
       BC: tl.constexpr, TICKET: tl.constexpr, ALIGN: tl.constexpr):
    if TICKET:
        t = tl.atomic_add(ticket_ptr, 1)
    else:
        t = tl.program_id(0)
    row = t // C
    c = t % C
    base = tl.cast(row, tl.int64) * L
    if ALIGN:
        start = base // 4 * 4                      # the 16-byte boundary at or before the row
        lo = c * CHUNK + start                     # this chunk's first element (flat)
        offs = lo + tl.arange(0, CHUNK)
        m = (offs >= base) & (offs < base + L)
        inside = (lo >= base) & (lo + CHUNK <= base + L)
        if inside:
            v = tl.load(x_ptr + offs)
        else:
            v = tl.load(x_ptr + offs, mask=m, other=0.0)
    else:
        offs = base + c * CHUNK + tl.arange(0, CHUNK)
        m = offs < base + L
        v = tl.load(x_ptr + offs, mask=m, other=0.0)
    tot = tl.sum(tl.abs(v), axis=0)
    if C > 1:
        tl.store(part_ptr + t, tot)
        tl.atomic_add(cnt_ptr + row, 1, sem="release")
        n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
        while n < C:
            n = tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
        cs = tl.arange(0, BC)
        pv = tl.load(part_ptr + row * C + cs, mask=cs < C, other=0.0, cache_modifier=".cg")
        tot = tl.sum(pv, axis=0)
    out = v * (L / tot)
    if ALIGN:
        if inside:
            tl.store(y_ptr + offs, out)
        else:
            tl.store(y_ptr + offs, out, mask=m)
    else:
        tl.store(y_ptr + offs, out, mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        rows, L = x.shape
        y = torch.empty_like(x)
        C = triton.cdiv(L + (3 if P_ALIGN else 0), P_CHUNK)
        part = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        cnt = torch.zeros(rows + 1, device=x.device, dtype=torch.int32)
        _k[(rows * C,)](x, y, part, cnt, cnt[rows:], L, C=C, CHUNK=P_CHUNK, BC=triton.next_power_of_2(C),
                        TICKET=P_TICKET, ALIGN=P_ALIGN, num_warps=P_NUM_WARPS)
        return y
