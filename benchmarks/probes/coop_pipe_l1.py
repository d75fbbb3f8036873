"""Probe: the cooperative L1 normalisation of ``coop_ticket_l1.py`` (x / mean(|x|, dim=1), each
row cut into chunks of P_CHUNK elements, a per-row barrier on an atomic counter, the chunk held in
registers across it) with the barrier's wait hidden behind the next chunk's loads.

A launch of P_PER_SM programs a multiprocessor, each looping over tickets: it loads its chunk,
stores the chunk's partial and arrives at the row's counter, then takes the next ticket, loads
that chunk, stores its partial and arrives for it too, and only then waits for the first chunk's
row and writes the first chunk's outputs. Between an arrival and the wait on it lies a whole
chunk's load, where ``coop_ticket_l1.py`` waits right after arriving.

No deadlock: a program waits only once every chunk it holds has arrived, so while all programs
wait, the lowest row waited on has all of its ticketed chunks arrived; it lacks one only if the
programs' 2 x P_PER_SM x SMs held chunks all lie in that row, which needs a row of more chunks
than that (refused on the host). P_ALIGN as in ``coop_ticket_l1.py``."""
import torch
import triton
import triton.language as tl

P_CHUNK = 4096
P_NUM_WARPS = 8
P_PER_SM = 3
P_ALIGN = 1


@triton.jit
def _place(t, total, L, C: tl.constexpr, CHUNK: tl.constexpr, ALIGN: tl.constexpr):
    """Item ``t``'s row, flat offsets, mask, and whether it lies wholly inside its row."""
    row = t // C
    base = tl.cast(row, tl.int64) * L
    if ALIGN:
        lo = base // 4 * 4 + (t % C) * CHUNK
    else:
        lo = base + (t % C) * CHUNK
    offs = lo + tl.arange(0, CHUNK)
    m = (offs >= base) & (offs < base + L) & (t < total)
    inside = (lo >= base) & (lo + CHUNK <= base + L) & (t < total)
    return row, offs, m, inside


@triton.jit
def _take(x_ptr, part_ptr, cnt_ptr, t, total, L, C: tl.constexpr, CHUNK: tl.constexpr, ALIGN: tl.constexpr):
    """Item ``t``'s values, its partial stored and its arrival at its row's counter."""
    row, offs, m, inside = _place(t, total, L, C, CHUNK, ALIGN)
    if inside:
        v = tl.load(x_ptr + offs)
    else:
        v = tl.load(x_ptr + offs, mask=m, other=0.0)
    if t < total:
        tl.store(part_ptr + t, tl.sum(tl.abs(v), axis=0))
        tl.debug_barrier()
        tl.atomic_add(cnt_ptr + row, 1, sem="release")
    return v


@triton.jit
def _k(x_ptr, y_ptr, part_ptr, cnt_ptr, ticket_ptr, L, total, C: tl.constexpr, CHUNK: tl.constexpr,
       BC: tl.constexpr, ALIGN: tl.constexpr):
    t = tl.atomic_add(ticket_ptr, 1)
    v = _take(x_ptr, part_ptr, cnt_ptr, t, total, L, C, CHUNK, ALIGN)
    while t < total:
        tn = tl.atomic_add(ticket_ptr, 1)
        vn = _take(x_ptr, part_ptr, cnt_ptr, tn, total, L, C, CHUNK, ALIGN)
        row, offs, m, inside = _place(t, total, L, C, CHUNK, ALIGN)
        n = tl.load(cnt_ptr + row, volatile=True)
        while n < C:
            n = tl.load(cnt_ptr + row, volatile=True)
        tl.atomic_add(cnt_ptr + row, 0, sem="acquire")
        tl.debug_barrier()
        cs = tl.arange(0, BC)
        pv = tl.load(part_ptr + row * C + cs, mask=cs < C, other=0.0, cache_modifier=".cg")
        out = v * (L / tl.sum(pv, axis=0))
        if inside:
            tl.store(y_ptr + offs, out)
        else:
            tl.store(y_ptr + offs, out, mask=m)
        t = tn
        v = vn


class ModelNew(torch.nn.Module):
    def forward(self, x):
        rows, L = x.shape
        y = torch.empty_like(x)
        C = triton.cdiv(L + (3 if P_ALIGN else 0), P_CHUNK)
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 1
        progs = min(sms * P_PER_SM, rows * C)
        if C > 2 * progs:
            raise ValueError(f"a row of {C} chunks needs at least {C // 2} programs")
        part = torch.empty(rows * C, device=x.device, dtype=torch.float32)
        cnt = torch.zeros(rows + 1, device=x.device, dtype=torch.int32)
        _k[(progs,)](x, y, part, cnt, cnt[rows:], L, rows * C, C=C, CHUNK=P_CHUNK,
                     BC=triton.next_power_of_2(C), ALIGN=P_ALIGN, num_warps=P_NUM_WARPS)
        return y
