"""The reduction emitter's cooperative form: a row too long for one program's registers, read once.

A row's reduced extent is cut into ``COOP`` chunks, one program a chunk, each holding its chunk in
registers from its loads to its stores. Per level of reductions the programs of a row store their
chunk's partials, meet at a ``barrier`` on the row's counter, load the row's ``COOP`` partials
and combine them, then go on from registers: the full-domain outputs are written from the values
loaded before the first barrier, so each element is read from memory once, where the loop form
reads a row once per level and once more for the outputs.

On an H100 the hand-written version of this form (one program per 4096- or 8192-element chunk, 8
warps, a ticketed per-row barrier) ran L1 normalisation of [32768, 65535] rows 1.41x faster than
the loop form, softmax over [4096, 393216] 1.47x (docs/results/h100/coop-ticket-run21.jsonl).

A barrier needs the programs of a row running at once, which only the Triton backend on a GPU can
promise (``akg_rag.lower.triton_barrier``): the emitter takes this form only when told the target
has barriers. A mixin of ``akg_rag.lower.emit.reduction._Emitter``.
"""

from __future__ import annotations

import math

from akg_rag.lower.emit.common import ExprWriter, decompose
from akg_rag.lower.region import Value

COOP_CHUNK = 4096        # elements of a program's chunk; twice this where the row still gets COOP_MIN
COOP_MIN = 16            # ... programs and the registers hold it; doubled while a row would need more
COOP_MAX = 64            # ... than COOP_MAX programs (the host lowers it to the GPU's SM count)
COOP_THREADS = 256       # threads a program (eight warps: the Triton backend's default for barriers)
COOP_HELD_MAX = 64       # elements a thread holds x (tensors read per element + 1): above, the loop form
# a chunk of at most this many elements hints its grid loop `pipeline`: the Triton backend's
# pipelined form (akg_rag.lower.triton_pipe) is then on by default. On an H100 it paid for
# 4096-element chunks (L1/L2 norms of 65535-element rows, 1.08-1.10x at three programs an SM) and
# not for 8192 (softmax 1.03x, log-softmax and instance norm 0.99x: 128 registers a thread
# pipelined, two programs an SM)
COOP_PIPE_CHUNK = 4096


def coop_count(rn: int, tensors: int = 1) -> int:
    """Programs per row of the cooperative form for a reduced extent ``rn`` whose elements each
    read ``tensors`` tensors (0: not this form).

    Measured on an H100 (docs/results/kernelbench.md, twenty-third session): fewer, longer chunks
    pay (instance norm of 262144-element rows 5.9 ms on 8192-element chunks, 7.1 on 4096) until a
    thread holds more than its registers keep resident (softmax on 16384-element chunks, 64 a
    thread: 7.9 ms against 5.2 on 8192); a row whose elements each read several tensors (a group
    norm's per-channel parameters gathered per element: 106 registers a thread on 4096-element
    chunks) ran slower than the loop form's two reads of it."""
    def held(chunk: int) -> int:
        return max(1, chunk // COOP_THREADS) * (tensors + 1)

    wide = 2 * COOP_CHUNK
    chunk = wide if -(-rn // wide) >= COOP_MIN and held(wide) <= COOP_HELD_MAX else COOP_CHUNK
    while -(-rn // chunk) > COOP_MAX:
        chunk *= 2
    if held(chunk) > COOP_HELD_MAX:
        return 0
    return -(-rn // chunk)


class CoopMixin:
    """Sketch text of the cooperative form (one launch, a barrier per level of reductions)."""

    def row_inputs(self, gathers: bool = True) -> set[str]:
        """The inputs read at each element of a row, in the row's reductions and full-domain
        outputs: those that vary along a reduced dim and, with ``gathers``, the gathered ones (a
        group norm's per-channel parameters)."""
        names: set[str] = set()

        def walk(e) -> None:
            if (gathers and e.op == "gather") or (e.op == "input" and any(
                    d in self.red for d in self.amaps.get(e.ref, ()) if d is not None)):
                names.add(e.ref)
            for a in e.args:
                walk(a)

        for red in self.region.reductions:
            walk(red.expr)
        for o in self.region.outputs:
            if o.domain == "full":
                walk(o.expr)
        return names

    def row_tensors(self) -> int:
        """Tensors read at each element of a row (``row_inputs``), at least 1."""
        return max(1, len(self.row_inputs()))

    def coop(self, count: int) -> None:
        w, r = self.w, self.region
        levels, online, pairs, sources = self.merged_levels()   # shared passes (emit/onepass.py)
        COOP = w.param("COOP", count)
        parts, cnt = self.coop_temps(levels, pairs, online, sources, COOP)
        self.KB = "1"
        pid = w.fresh("pid")
        rn = math.prod(r.shape[d] for d in self.red)
        short = len(levels) == 1 and -(-rn // count // 16) * 16 <= COOP_PIPE_CHUNK   # the chunk at the default count
        w.loop(1, pid, f"{self.KN} * {COOP}", "parallel", more=(("pipeline", "grid"),) if short else ())
        sk, kidx = self.coop_row(pid, COOP)
        ri, valid = w.fresh("r"), w.fresh("valid")
        # a multiple of 16 elements, so that a chunk's start keeps the row's alignment in sight of
        # the compiler (Triton vectorises a load only where it can prove 16-byte alignment)
        chunk = f"(({self.RN} + {COOP} * 16 - 1) // ({COOP} * 16) * 16)"
        w.emit(2, f"{ri} = unsqueeze({sk} * {chunk} + iota({chunk}), axis=0)")
        w.emit(2, f"{valid} = lt({ri}, {self.RN})")
        idx = self.merge(kidx, self.reduced_index(2, ri))
        ew = ExprWriter(w, 2, self.leaf_fn(2, idx))
        ew.prepare([red.expr for red in r.reductions if red.name not in pairs and red.name not in online]
                   + [o.expr for o in r.outputs if o.domain == "full"])
        s_i = w.fresh("s")
        w.emit(2, f"{s_i} = iota({COOP})")
        for level, group in enumerate(levels):
            for red in group:   # this chunk's partials
                if red.name in pairs or red.name in online:
                    continue
                text, _ = ew.write(red.expr)
                p = w.fresh("p")
                if red.name in sources:   # count, sum and squared deviations about the chunk's mean
                    n, mu, q = w.fresh("pn"), w.fresh("pmu"), w.fresh("pq")
                    dv = w.fresh("dv")
                    # the chunk's valid lanes, counted as a scalar (a tile of constants would
                    # get no load's layout: Triton gave it one holding the whole chunk a thread)
                    w.emit(2, f"{n} = cast(min(max({self.RN} - {sk} * {chunk}, 0), {chunk}), f32)")
                    w.emit(2, f"{p} = reduce_sum(where({valid}, {text}, 0.0), axis=1, keepdim=1)")
                    w.emit(2, f"{mu} = div({p}, max({n}, 1.0))")
                    w.emit(2, f"{dv} = where({valid}, sub({text}, {mu}), 0.0)")
                    w.emit(2, f"{q} = reduce_sum(mul({dv}, {dv}), axis=1, keepdim=1)")
                    for v, x in zip(parts[red.name], (p, n, q)):
                        w.emit(2, f"store({x} -> {self.part_at(v, sk)})")
                    continue
                w.emit(2, f"{p} = reduce_{red.kind}(where({valid}, {self.widened(red, text)}, {self.neutral(red)}), axis=1, keepdim=1)")
                w.emit(2, f"store({p} -> {self.part_at(parts[red.name][0], sk)})")
                for x in (x for x, mx in online.items() if mx == red.name):
                    # the chunk's sum of exp(E - its max) (0 for a chunk of -inf: no exp(-inf - -inf))
                    px = w.fresh("p")
                    w.emit(2, f"{px} = where(eq({p}, -inf), 0.0, reduce_sum(where({valid}, exp(sub({text}, {p})), 0.0), "
                              "axis=1, keepdim=1))")
                    w.emit(2, f"store({px} -> {self.part_at(parts[x][0], sk)})")
            self.coop_meet(level, group, parts, cnt, s_i, COOP, online, pairs, sources)
        masks = {"k": self.kmask, "r": valid}
        self.store_outputs(2, ew, "full", idx, masks)
        self.coop_reduced_outputs(sk)

    # ---- pieces shared with the streaming form (emit/stream.py) -----------------------------------
    def coop_temps(self, levels, pairs, online, sources, COOP: str) -> tuple[dict[str, list[Value]], Value]:
        """Per reduction, its chunks' partials ``[kept..., COOP]`` (a variance's source: its count
        and squared deviations too), and the rows' barrier counters ``[kept..., levels]``."""
        w = self.w
        ksyms = [self.syms[d] for d in self.kept]
        parts: dict[str, list[Value]] = {}
        for red in (red for group in levels for red in group if red.name not in pairs):
            dt = {"i64": "int64", "f64": "float64"}.get(self.acc_dtype(red), "float32")
            base = f"part_{red.name}" if red.name.isidentifier() else "part"
            kinds = ("", "n", "q") if red.name in sources else ("",)
            parts[red.name] = [Value(w.fresh(f"{base}{k}"), (1,), dt) for k in kinds]
            for v in parts[red.name]:
                w.tensor(v, ksyms + [COOP], "temp")
        cnt = Value(w.fresh("cnt"), (1,), "int32")
        w.tensor(cnt, ksyms + [str(len(levels))], "temp")
        return parts, cnt

    def coop_row(self, pid: str, COOP: str) -> tuple[str, list[str]]:
        """The row and chunk of grid point ``pid``: the chunk's name and the row's kept indices
        (scalars: one row a program, for the data, the partials and the counter)."""
        w = self.w
        row, sk = w.fresh("row"), w.fresh("sk")
        w.emit(2, f"{row} = {pid} // {COOP}")
        w.emit(2, f"{sk} = {pid} % {COOP}")
        kidx = decompose(w, 2, row, [self.syms[d] for d in self.kept], [f"k{d}" for d in self.kept])
        self.kidx, self.kmask = kidx, f"lt({row}, {self.KN})"
        return sk, kidx

    def part_at(self, v: Value, s: str) -> str:
        """A row's partials, addressed with the row's scalar indices: storing one (``s`` the
        chunk) or loading all of them as a 1-D tile (``s`` an iota). A [1, COOP] tile there
        got a layout from Triton holding all of it in every thread (sm_90: 166 registers)."""
        return f"{v.name}[{', '.join(self.kidx + [s])}]"

    def coop_meet(self, level: int, group, parts, cnt: Value, s_i: str, COOP: str, online, pairs, sources) -> None:
        """The barrier of ``level`` on the row's counter, then the row's partials of ``group``
        loaded (``s_i``: an iota over the row's chunks) and combined into ``results``, in every
        program of the row."""
        w = self.w
        w.emit(2, f"barrier({cnt.name}[{', '.join(self.kidx + [str(level)])}], {COOP})")

        def scalar(tile: str, kind: str, name: str = "") -> str:
            """The row's partials combined: a scalar, broadcast into the chunk's tiles as one (a
            [1, 1] tile may give the chunk the partials' layout in Triton)."""
            out = w.fresh(name if name.isidentifier() else "red")
            w.emit(2, f"{out} = reduce_{kind}({tile}, axis=0)")
            return out

        merged = {}
        for red in group:   # the row's partials combined, in every program of the row
            if red.name in pairs or red.name in online:
                continue
            loaded = []
            for v in parts[red.name]:
                pv = w.fresh("pv")
                w.emit(2, f"load({self.part_at(v, s_i)} -> {pv})")
                loaded.append(pv)
            if red.name in sources:   # counts, sums, squared deviations: scalars (1-D tiles)
                pv, pn, pq = loaded
                merged[red.name] = self.welford_merge(2, pn, pv, pq, None, axis="axis=0")
                continue
            res = scalar(loaded[0], red.kind, red.name)
            self.results[red.name] = (res, frozenset({"k"}))
            for x in (x for x, mx in online.items() if mx == red.name):
                sx = w.fresh("pv")
                w.emit(2, f"load({self.part_at(parts[x][0], s_i)} -> {sx})")
                tot = scalar(f"where(eq({loaded[0]}, -inf), 0.0, mul({sx}, exp(sub({loaded[0]}, {res}))))", "sum", x)
                self.results[x] = (tot, frozenset({"k"}))
        if pairs:
            self.variance_results(2, pairs, merged, self.merge(self.kidx, None))

    def coop_reduced_outputs(self, sk: str) -> None:
        """The reduced-domain outputs, from the row's first program only (the others' land
        outside)."""
        w = self.w
        if not any(o.domain == "reduced" for o in self.region.outputs):
            return
        first = w.fresh("k_first")
        w.emit(2, f"{first} = where(eq({sk}, 0), {self.kidx[0]}, -1)")
        ridx = self.merge([first, *self.kidx[1:]], None)
        red_ew = ExprWriter(w, 2, self.leaf_fn(2, ridx))
        red_ew.prepare(o.expr for o in self.region.outputs if o.domain == "reduced")
        self.store_outputs(2, red_ew, "reduced", ridx, {"k": self.kmask})
