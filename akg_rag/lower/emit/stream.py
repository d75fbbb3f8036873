"""The reduction emitter's streaming cooperative form: a row too long for registers, read again from L2.

The cooperative form (emit/coop.py) holds a row's chunk in registers across its barrier, so a row
fits only while ``COOP`` programs of a few thousand elements each cover it. A longer row (a group
norm's 2M-element groups, a layer norm over a whole [64, 256, 256] sample) otherwise takes the
split form: a launch for the partials, one to combine them and one for the outputs, each row read
twice from memory, since the whole tensor passes between the two reads.

Here a row's ``COOP`` programs each stream a contiguous chunk of it in ``RBLOCK`` blocks per
level of reductions (lane accumulators as in the loop form: online sums, Welford's lanes), store
the chunk's partials, meet at a barrier on the row's counter and combine the row's partials (as
the cooperative form); the full-domain outputs then stream the chunk again, its blocks in reverse
order, so the ones read last, most likely still in L2, come first. The row is read again while
only the rows in flight have passed through L2 since: the Triton backend runs such a launch
(barriers and a row read again) as programs that loop over tickets -- one a grid point, or as
many as keep the rows in flight within half the L2 (``GRID_MODE`` 2), never fewer than a row's --
with the first pass's loads kept in L2 and the last pass's evicted first (``CACHE_MODE``;
akg_rag.lower.reuse).

Only when asked for (``emit_sketch(..., stream=True)``; ``python -m akg_rag.lower --stream``):
timed on an H100 (thirty-fourth session, docs/results/h100/stream-run34.jsonl) it ran no faster
than the split form at its best tunables -- level1/35 (896 groups of 2M elements) 7.93 ms
against 7.85 (the split form, thirty-first session), level1/33 (batch norm, 64 MB channels)
4.62 against 4.45 (same call), level1/40 (a layer norm whose 16 MB weight and bias every row
reads again) 0.393 against 0.33-0.43 (earlier sessions' sweeps) -- and at its defaults it lost
on level2/11 (0.76x eager against 0.84x) and 61 (3.66x against 3.80x). Nsight Compute on
level1/35: the second read is served by L2 (8.62 GB read from DRAM against the split form's
15.0), but the launch ran DRAM at 59% of peak against the split launches' 85-90%; level1/40 read
more than the split form (731 MB against 602): each row reads the layer norm's weight and bias
again, so a row whose outputs read an input every row shares is left to the split form
(reduction.py).

A mixin of ``akg_rag.lower.emit.reduction._Emitter`` (with ``CoopMixin``, whose temps, row
decomposition, barrier and combine it shares).
"""

from __future__ import annotations

import math

from akg_rag.lower.emit.common import ExprWriter

STREAM_COOP = 128          # programs a row (a barrier count: the host lowers it to the SM count)
STREAM_RBLOCK = 2048       # elements of a block
STREAM_MIN = 1 << 17       # reduced elements from which a row too long for registers streams
# bytes a row moves through L2 (its reads along the reduced dims and its full-domain writes) up to
# which the form is taken: beyond, the second read finds little of the row left in L2
STREAM_ROW_BYTES = 256 << 20


def stream_count(rn: int, row_bytes: int) -> int:
    """Programs a row in the streaming form for a reduced extent ``rn`` moving ``row_bytes``
    through L2 (0: not this form)."""
    if rn < STREAM_MIN or row_bytes > STREAM_ROW_BYTES:
        return 0
    return STREAM_COOP


class StreamMixin:
    """Sketch text of the streaming cooperative form (one launch, a barrier per level)."""

    def row_bytes(self) -> int:
        """Bytes one row reads along its reduced dims (each input that varies along one, per
        element) and writes as full-domain outputs."""
        r = self.region
        per = sum(self.by_name[n].itemsize for n in self.row_inputs(gathers=False))
        per += sum(o.value.itemsize for o in r.outputs if o.domain == "full")
        return math.prod(r.shape[d] for d in self.red) * per

    def coop_stream(self, count: int) -> None:
        from akg_rag.lower.emit.reduction import UPDATE  # reduction.py imports this module

        w, r = self.w, self.region
        levels, online, pairs, sources = self.merged_levels()   # shared passes (emit/onepass.py)
        COOP = w.param("COOP", count)
        RB = w.param("RBLOCK", STREAM_RBLOCK)
        parts, cnt = self.coop_temps(levels, pairs, online, sources, COOP)
        self.KB = "1"
        pid = w.fresh("pid")
        w.loop(1, pid, f"{self.KN} * {COOP}", "parallel")
        sk, kidx = self.coop_row(pid, COOP)
        # whole blocks a chunk, so a block never crosses into the next chunk
        chunk = f"(({self.RN} + {COOP} * {RB} - 1) // ({COOP} * {RB}) * {RB})"
        s_i = w.fresh("s")

        def blocks(reverse: bool) -> tuple[dict[str, str], ExprWriter, list[str | None]]:
            """A sequential loop over the chunk's blocks (last first where ``reverse``)."""
            r0, ri = w.fresh("r0"), w.fresh("r")
            w.loop(2, r0, f"0, {chunk}, {RB}", "pipeline", "core")
            at = f"{chunk} - {RB} - {r0}" if reverse else r0
            w.emit(3, f"{ri} = unsqueeze({sk} * {chunk} + {at} + iota({RB}), axis=0)")
            masks = {"k": self.kmask, "r": f"lt({ri}, {self.RN})"}
            idx = self.merge(kidx, self.reduced_index(3, ri))
            return masks, ExprWriter(w, 3, self.leaf_fn(3, idx)), idx

        for level, group in enumerate(levels):
            accs: dict[str, str] = {}
            names = {red.name for red in group}
            lanes = {s: self.welford_lanes(2, f"[1, {RB}]", s) for s in sorted(sources & names)}
            for red in group:
                if red.name in pairs or red.name in sources:
                    continue
                a = w.fresh(f"acc_{red.name}" if red.name.isidentifier() else "acc")
                dt = self.acc_dtype(red)
                w.emit(2, f'{a} = alloc([1, {RB}], {dt}, hint="accumulator", init={self.neutral(red)})')
                accs[red.name] = a
            masks, ew, _ = blocks(False)
            ew.prepare(red.expr for red in group if red.name not in online and red.name not in pairs)
            for red in group:
                if red.name in online or red.name in pairs:  # with its max / its mean's lanes
                    continue
                text, _ = ew.write(red.expr)
                if red.name in sources:
                    self.welford_update(3, lanes[red.name], masks["r"], text)
                    continue
                a = accs[red.name]
                m = w.fresh("m")
                w.emit(3, f"{m} = where({masks['r']}, {self.widened(red, text)}, {self.neutral(red)})")
                sums = [x for x, mx in online.items() if mx == red.name]
                if sums:   # running max per lane, the running sums of exp(E - max) rescaled
                    self.online_max_update(3, a, m, [accs[x] for x in sums])
                else:
                    w.emit(3, f"{a} = {UPDATE[red.kind]}({a}, {m})")
            for red in group:   # the chunk's partials
                if red.name in pairs or red.name in online:
                    continue
                if red.name in sources:   # count, sum and squared deviations (lanes merged)
                    n, mu, q = lanes[red.name]
                    got = self.welford_merge(2, n, f"mul({n}, {mu})", q, None, mu)   # (N, S, M2)
                    for v, x in zip(parts[red.name], (got[1], got[0], got[2])):
                        w.emit(2, f"store({x} -> {self.part_at(v, sk)})")
                    continue
                a, p = accs[red.name], w.fresh("p")
                w.emit(2, f"{p} = reduce_{red.kind}({a}, axis=1, keepdim=1)")
                w.emit(2, f"store({p} -> {self.part_at(parts[red.name][0], sk)})")
                for x in (x for x, mx in online.items() if mx == red.name):
                    # the chunk's sum of exp(E - its max): the lanes' sums rescaled (0 for a lane of -inf)
                    px = w.fresh("p")
                    w.emit(2, f"{px} = reduce_sum(where(eq({a}, -inf), 0.0, mul({accs[x]}, exp(sub({a}, {p})))), "
                              "axis=1, keepdim=1)")
                    w.emit(2, f"store({px} -> {self.part_at(parts[x][0], sk)})")
            if level == 0:
                w.emit(2, f"{s_i} = iota({COOP})")
            self.coop_meet(level, group, parts, cnt, s_i, COOP, online, pairs, sources)
        if any(o.domain == "full" for o in r.outputs):
            masks, ew, idx = blocks(True)
            ew.prepare(o.expr for o in r.outputs if o.domain == "full")
            self.store_outputs(3, ew, "full", idx, masks)
        self.coop_reduced_outputs(sk)
