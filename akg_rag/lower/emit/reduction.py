"""Reduction regions: reductions over any dims with prologue and epilogue fused, one launch.

A program owns ``KBLOCK`` kept elements (the flattened kept dims) and works on ``[KBLOCK, R]``
tiles: axis 0 kept elements (index tiles ``[KBLOCK, 1]``), axis 1 reduced elements (index tiles
``[1, R]``); each dim's index comes from ``//`` and ``%`` of the flat indices, so the reduced
dims need not be trailing or contiguous (batch norm reduces N, H, W per channel).

* persistent form (reduced element count <= ``PERSISTENT_MAX``): the reduced extent is one tile,
  the inputs are loaded once, every reduction and output is computed from registers; not when the
  last (contiguous) dim is kept and the tile would hold fewer than ``COALESCE_MIN`` kept elements
  (a reduction over a middle dim: such a tile reads strided columns), which take the loop form;
* split form (few kept elements over a long reduced extent, no argmax/argmin): see
  ``split_count`` and ``SplitMixin.split`` (akg_rag/lower/emit/split.py); two launches per level
  of reductions and one for full-domain outputs, through ``temp`` tensors;
* cooperative form (a target with barriers, the last dim reduced, rows longer than the persistent
  form takes, full-domain outputs or several levels, no argmax/argmin): ``CoopMixin.coop``
  (akg_rag/lower/emit/coop.py), a row's chunks on ``COOP`` programs that meet at a barrier per
  level, each chunk read once;
* streaming cooperative form (only when asked for, ``stream``; a target with barriers, rows the
  split form would take that the cooperative form cannot hold in registers, at least
  ``STREAM_MIN`` reduced elements moving at most ``STREAM_ROW_BYTES`` through L2, any reduced
  dims, no output reading an input shared by every row): ``StreamMixin.coop_stream``
  (akg_rag/lower/emit/stream.py), a row's chunks on ``COOP`` programs that each stream their chunk
  per level, meet at a barrier, and stream it again for the outputs; timed on an H100 it ran no
  faster than the split form, which stays the default;
* loop form: one sequential pass over ``RBLOCK`` blocks per *level* of reductions (a reduction
  reading another's result is one level later, as softmax's sum reads its max; but a
  ``sum(exp(E - max(E)))`` shares its max's pass, see ``_Emitter.online_sums``, and a variance
  ``sum((E - a)**2)`` about a mean of ``sum(E)`` shares the mean's, see ``_Emitter.variance_pairs``;
  the split form merges such a pair in one level too), each recomputing
  its expression from the inputs into lane-wise accumulators ``[KBLOCK, RBLOCK]``, then one pass
  writing the full-domain outputs. argmax/argmin keep the best value and its index per lane and
  take the smallest index among the lanes holding the extreme (torch's first occurrence).
"""

from __future__ import annotations

import math

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, access, cdiv_text, decompose, declare_inputs, expr_dtype,
    fit, next_pow2, pin_unbound, prod_text,
)
from akg_rag.lower.emit.coop import CoopMixin, coop_count
from akg_rag.lower.emit.onepass import OnePassMixin
from akg_rag.lower.emit.split import SplitMixin
from akg_rag.lower.emit.stream import StreamMixin, stream_count
from akg_rag.lower.region import Expr, Reduction, ReductionRegion, plain_inputs

PERSISTENT_MAX = 8192   # reduced elements: up to this many, the whole reduced extent is one tile
TILE_MAX = 4096         # elements of a persistent [KBLOCK, R] tile (register budget of a program)
LOOP_RBLOCK = 1024      # reduced elements per block in the loop form (last dim reduced)
# (KBLOCK, RBLOCK) in the loop form when the last dim is kept: 512-byte rows of the contiguous
# kept dim per load (a [32, 64] tile ran 2.60 ms, [128, 64] on 8 warps 2.01: level1/49 on an H200)
LOOP_TILE = (128, 64)
# ... for argmax / argmin, which carry a value and an index accumulator: [32, 64] on 4 warps (the
# wide tile on 8 warps ran 3.19 ms against 2.48 on level1/51 and 52)
LOOP_TILE_ARG = (32, 64)
LOOP_KBLOCK_MIN = 32    # ... narrowed down to this when LOOP_TILE[0] would leave too few programs
PROGRAMS_MIN = 256      # programs a reduction's grid should have (a GPU of ~100+ SMs, two each)
COALESCE_MIN = 16       # kept elements per program, at least, when the last (contiguous) dim is kept

LONG_ROW = 1 << 15       # a reduced extent (last dim reduced) from which the loop form takes LONG_RBLOCK
# its block: L2 norm of [32768, 65535] rows 0.67x eager at 1024, 1.02x at 4096 (H200); L1 norm of the
# same rows 11.8 ms at 4096 on 4 warps, 9.4 at 8192 on 16 (H100, docs/results/h100/long-rows-run17.jsonl)
LONG_RBLOCK = 8192

SPLIT_MIN_REDUCED = 1 << 17   # reduced elements from which a few-row reduction is split
SPLIT_CHUNK_MIN = 1 << 16     # reduced elements per chunk of the split form, at least
SPLIT_ROWS = 1024             # kept elements below which a long reduction is split
SPLIT_PROGRAMS = 2048         # programs the split form aims at (kept elements x chunks)
SPLIT_MAX = 2048              # chunks per kept element, at most
# a handful of kept elements over a shorter extent: one program per kept element is latency-bound
# (cross-entropy's final mean over 32768 gathered terms ran 91 us in one program, H100), so split
# from SPLIT_MIN_FEW reduced elements, chunks of at least SPLIT_CHUNK_FEW
SPLIT_FEW_ROWS = 8
SPLIT_MIN_FEW = 1 << 14
SPLIT_CHUNK_FEW = 1 << 12

IDENTITY = {"sum": "0", "prod": "1", "max": "-inf", "min": "inf", "argmax": "-inf", "argmin": "inf"}
# integer and bool reductions accumulate in int64, padded lanes holding the type's bounds (a float
# infinity would turn the reduction into a float one: int32 values past 2**24 rounded)
INT_IDENTITY = {"sum": "0", "prod": "1", "max": "(-9223372036854775807 - 1)", "min": "9223372036854775807",
                "argmax": "(-9223372036854775807 - 1)", "argmin": "9223372036854775807"}
UPDATE = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


class _Emitter(OnePassMixin, SplitMixin, CoopMixin, StreamMixin):
    def __init__(self, region: ReductionRegion, name: str, barriers: bool = False, stream: bool = False) -> None:
        self.region = r = region
        self.barriers = barriers
        self.stream = stream
        self.shape = tuple(r.shape)
        n = len(self.shape)
        if not r.dims or any(not 0 <= d < n for d in r.dims):
            raise ValueError(f"reduced dims {r.dims} do not fit a rank-{n} domain")
        self.red = sorted(r.dims)
        self.kept = [d for d in range(n) if d not in self.red]
        self.w = w = SketchWriter(name, [*r.inputs, *(o.value for o in r.outputs)])
        self.syms = [w.symbol(f"D{i}") for i in range(n)]
        exprs = [red.expr for red in r.reductions] + [o.expr for o in r.outputs]
        # an input read only by epilogues on the reduced domain cannot vary along the reduced dims:
        # its size-1 dims there broadcast, even where the domain has size 1 too (mean over D, H, W
        # with D = 1, then + bias[C, 1, 1, 1], whose dim 1 lands on that D)
        full = plain_inputs([red.expr for red in r.reductions] + [o.expr for o in r.outputs if o.domain == "full"])
        epilogue = {v.name: frozenset(self.red) for v in r.inputs if v.name not in full}
        self.amaps = declare_inputs(w, r.inputs, exprs, self.shape, self.syms, epilogue)
        self.by_name = {v.name: v for v in r.inputs}
        self.omaps: dict[str, list[int | None]] = {}
        for o in r.outputs:
            self.omaps[o.value.name] = self.declare_output(o.value, o.domain)
        self.syms = pin_unbound(w, self.syms, self.shape)
        self.KN = prod_text(self.syms[d] for d in self.kept)
        self.RN = prod_text(self.syms[d] for d in self.red)
        dtypes = {v.name: v.dtype for v in r.inputs}
        self.f_acc = "f64" if "float64" in dtypes.values() else "f32"
        self.kinds = {red.name: expr_dtype(red.expr, dtypes) for red in r.reductions}
        self.results: dict[str, tuple[str, Deps]] = {}

    def declare_output(self, v, domain: str) -> list[int | None]:
        n = len(self.shape)
        if domain == "full":
            if tuple(v.shape) != self.shape:
                raise ValueError(f"full-domain output {v.name} {v.shape} is not the domain {self.shape}")
            self.w.tensor(v, self.syms, "out")
            return list(range(n))
        if len(v.shape) == n:  # keepdim: reduced dims of size 1
            self.w.tensor(v, [self.syms[d] if d in self.kept else "1" for d in range(n)], "out")
            return [d if d in self.kept else None for d in range(n)]
        if len(v.shape) != len(self.kept):
            raise ValueError(f"reduced output {v.name} {v.shape} fits neither keepdim nor dropped dims")
        self.w.tensor(v, [self.syms[d] for d in self.kept], "out")
        return list(self.kept)

    # ---- pieces ----------------------------------------------------------------------------------
    def leaf_fn(self, depth: int, idx: list[str | None]):
        loaded: dict[str, tuple[str, Deps]] = {}

        def leaf(e: Expr) -> tuple[str, Deps]:
            if e.op == "numel":
                return self.RN, NO_DEPS
            if e.op == "index":  # the position along a domain dim: its index tile
                d = int(e.value)  # type: ignore[arg-type]
                if idx[d] is None:
                    raise ValueError(f"an index leaf on reduced dim {d} outside the reduced dims' pass")
                return idx[d], frozenset({"k" if d in self.kept else "r"})  # type: ignore[return-value]
            if e.op == "reduced":
                if e.ref not in self.results:
                    raise ValueError(f"reduced leaf {e.ref!r} is read before its reduction")
                return self.results[e.ref]  # type: ignore[index]
            if e.op != "input" or e.ref not in self.by_name:
                raise ValueError(f"a reduction region has no {e.op} leaf {e.ref or ''}")
            if e.ref not in loaded:
                v, amap = self.by_name[e.ref], self.amaps[e.ref]
                if any(d is not None and idx[d] is None for d in amap):
                    raise ValueError(f"input {v.name} varies along reduced dims but is read on the reduced domain")
                local = self.w.fresh(f"{v.name}_v")
                self.w.emit(depth, f"load({access(v, amap, idx)} -> {local})")  # type: ignore[arg-type]
                deps = {"k" if d in self.kept else "r" for d in amap if d is not None}
                loaded[e.ref] = (local, frozenset(deps))
            return loaded[e.ref]
        return leaf

    def reduced_index(self, depth: int, r: str) -> list[str]:
        return decompose(self.w, depth, r, [self.syms[d] for d in self.red], [f"r{d}" for d in self.red])

    def merge(self, kidx: list[str], ridx: list[str] | None) -> list[str | None]:
        idx: list[str | None] = [None] * len(self.shape)
        for d, i in zip(self.kept, kidx):
            idx[d] = i
        for d, i in zip(self.red, ridx or [None] * len(self.red)):
            idx[d] = i
        return idx

    def store_outputs(self, depth: int, ew: ExprWriter, domain: str, idx: list[str | None],
                      masks: dict[str, str]) -> None:
        need = ["k", "r"] if domain == "full" else ["k"]
        for o in self.region.outputs:
            if o.domain != domain:
                continue
            text, deps = ew.write(o.expr)
            if domain == "reduced" and "r" in deps:
                raise ValueError(f"reduced output {o.value.name} varies along the reduced dims")
            local = self.w.fresh(f"{o.value.name}_o")
            self.w.emit(depth, f"{local} = {fit(text, deps, need, masks)}")
            omap = self.omaps[o.value.name]
            self.w.emit(depth, f"store({local} -> {access(o.value, omap, idx)})")  # type: ignore[arg-type]

    def levels(self) -> list[list[Reduction]]:
        level: dict[str, int] = {}
        groups: dict[int, list[Reduction]] = {}

        def reads(e: Expr) -> set[str]:
            out = {e.ref} if e.op == "reduced" else set()
            for a in e.args:
                out |= reads(a)
            return out  # type: ignore[return-value]

        for red in self.region.reductions:
            level[red.name] = max((level[x] + 1 for x in reads(red.expr) if x in level), default=0)
            groups.setdefault(level[red.name], []).append(red)
        return [groups[k] for k in sorted(groups)]

    def acc_dtype(self, red: Reduction) -> str:
        return "i64" if self.kinds[red.name] in ("int", "bool") else self.f_acc

    def neutral(self, red: Reduction) -> str:
        """What a padded lane holds for ``red``: its op's identity in the accumulator's type."""
        return (INT_IDENTITY if self.kinds[red.name] in ("int", "bool") else IDENTITY)[red.kind]

    def widened(self, red: Reduction, text: str) -> str:
        """``text`` in the accumulator's type where an integer max/min would otherwise meet an
        int64 bound in a narrower type."""
        if self.kinds[red.name] in ("int", "bool") and red.kind not in ("sum", "prod"):
            return f"cast({text}, i64)"
        return text

    # ---- the sketch ------------------------------------------------------------------------------
    def emit(self) -> str:
        w = self.w
        kn = math.prod(self.shape[d] for d in self.kept)
        rn = math.prod(self.shape[d] for d in self.red)
        last_reduced = len(self.shape) - 1 in self.red
        persistent = rn <= PERSISTENT_MAX
        if persistent and not last_reduced and self.kept and \
                max(1, TILE_MAX // next_pow2(rn)) < min(next_pow2(kn), COALESCE_MIN):
            # the kept dims hold the contiguous one: a persistent tile this narrow reads each kept
            # element's column alone (one sector per element); the loop form's [32, 64] blocks
            # read whole rows of contiguous kept elements
            persistent = False
        arg = any(red.kind in ("argmax", "argmin") for red in self.region.reductions)
        # the loop form reads a row once per level of its passes (the online sums and variances
        # share one) and once more for full-domain outputs: the cooperative forms only where it
        # would read the row more than once
        rereads = self.barriers and bool(self.kept) and not persistent and not arg and (
            len(self.merged_levels()[0]) > 1 or any(o.domain == "full" for o in self.region.outputs))
        coop = coop_count(rn, self.row_tensors()) if rereads and last_reduced else 0   # a row read once (emit/coop.py)
        split = split_count(kn, rn, self.region)
        if self.stream and rereads and coop <= 1 and split > 1 and not self.shared_along_kept():
            # a row too long for registers, in place of the split form: read again from L2 (not
            # where the outputs read an input every row shares, as a layer norm's weight: the
            # split form's output launch shares it across rows, each row here reads it again)
            stream = stream_count(rn, self.row_bytes())
            if stream:
                self.coop_stream(stream)
                return w.text()
        if split > 1:
            self.split(split)
            return w.text()
        if coop > 1:
            self.coop(coop)
            return w.text()
        # the last (contiguous) dim kept and long enough: programs own a run of it, so that a tile's
        # kept lanes are consecutive addresses the compiler can see (coalesced loads)
        inner = not last_reduced and bool(self.kept) and self.shape[-1] >= COALESCE_MIN
        kn_tile = self.shape[-1] if inner else kn
        if persistent:
            kb = min(next_pow2(kn_tile), max(1, TILE_MAX // next_pow2(rn)), 128)
        else:
            kb = 1 if last_reduced else min((LOOP_TILE_ARG if arg else LOOP_TILE)[0], next_pow2(kn_tile))
            while kb > LOOP_KBLOCK_MIN and -(-kn // kb) < PROGRAMS_MIN:
                kb //= 2   # few kept elements: narrower tiles, enough programs to fill the machine
        # no kept dims: one program, one row (a tunable could only make the row tile wrong)
        self.KB = KB = w.param("KBLOCK", kb) if self.kept else "1"
        pid = w.fresh("pid")
        names = [f"k{d}" for d in self.kept]
        if inner:
            last = self.syms[-1]
            blocks = cdiv_text(last, KB)
            outer = [self.syms[d] for d in self.kept[:-1]]
            w.loop(1, pid, prod_text([*outer, blocks]), "parallel")
            kl = w.fresh(names[-1])
            w.emit(2, f"{kl} = unsqueeze(({pid} % {blocks}) * {KB} + iota({KB}), axis=1)")
            if outer:
                kq = w.fresh("kq")
                w.emit(2, f"{kq} = {pid} // {blocks}")
                kidx = [*decompose(w, 2, kq, outer, names[:-1]), kl]
            else:
                kidx = [kl]
            self.kmask = f"lt({kl}, {last})"
        else:
            w.loop(1, pid, cdiv_text(self.KN, KB), "parallel")
            kk = w.fresh("kk")
            w.emit(2, f"{kk} = unsqueeze({pid} * {KB} + iota({KB}), axis=1)")
            kidx = decompose(w, 2, kk, [self.syms[d] for d in self.kept], names)
            self.kmask = f"lt({kk}, {self.KN})"
        self.kidx = kidx
        if persistent:
            self.persistent(kidx)
        else:
            # long rows take wider blocks, except under a variance's three lane accumulators
            # (count, mean, squared deviations: 4096 lanes of each spilled on sm_90)
            long = rn >= LONG_ROW and not self.variance_pairs(self.levels())
            rb = (LONG_RBLOCK if long else LOOP_RBLOCK) if last_reduced else LOOP_TILE[1]
            self.looped(kidx, w.param("RBLOCK", rb))
        return w.text()

    def persistent(self, kidx: list[str]) -> None:
        w, r = self.w, self.w.fresh("r")
        w.emit(2, f"{r} = unsqueeze(iota({self.RN}), axis=0)")
        masks = {"k": self.kmask, "r": f"lt({r}, {self.RN})"}
        idx = self.merge(kidx, self.reduced_index(2, r))
        ew = ExprWriter(w, 2, self.leaf_fn(2, idx))
        ew.prepare([red.expr for red in self.region.reductions] + [o.expr for o in self.region.outputs])
        for red in self.region.reductions:
            text, deps = ew.write(red.expr)
            op = {"argmax": "reduce_argmax", "argmin": "reduce_argmin"}.get(red.kind, f"reduce_{red.kind}")
            res = w.fresh(red.name if red.name.isidentifier() else "red")
            w.emit(2, f"{res} = {op}(where({masks['r']}, {self.widened(red, text)}, {self.neutral(red)}), axis=1, keepdim=1)")
            self.results[red.name] = (res, deps & {"k"})
        self.store_outputs(2, ew, "full", idx, masks)
        self.store_outputs(2, ew, "reduced", idx, masks)

    def looped(self, kidx: list[str], RB: str) -> None:
        w = self.w
        kmask = self.kmask
        levels, online, pairs, sources = self.merged_levels()   # shared passes (emit/onepass.py)
        for group in levels:
            accs = {}
            lanes = {s: self.welford_lanes(2, f"[{self.KB}, {RB}]", s) for s in sources}
            for red in group:
                if red.name in pairs or red.name in sources:
                    continue
                a = w.fresh(f"acc_{red.name}" if red.name.isidentifier() else "acc")
                dt = self.acc_dtype(red)
                w.emit(2, f'{a} = alloc([{self.KB}, {RB}], {dt}, hint="accumulator", init={self.neutral(red)})')
                if red.kind in ("argmax", "argmin"):
                    ai = w.fresh(f"{a}_i")
                    w.emit(2, f'{ai} = alloc([{self.KB}, {RB}], i64, hint="accumulator", init=0)')
                    accs[red.name] = (a, ai)
                else:
                    accs[red.name] = (a, None)
            r, masks, ew, bidx = self.block_head(RB)
            ew.prepare(red.expr for red in group if red.name not in online and red.name not in pairs)
            for red in group:
                if red.name in online or red.name in pairs:  # updated with its max / its mean's lanes
                    continue
                if red.name in sources:
                    text, deps = ew.write(red.expr)
                    self.welford_update(3, lanes[red.name], masks["r"], text)
                    self.results[red.name] = ("", deps & {"k"})
                    continue
                text, deps = ew.write(red.expr)
                a, ai = accs[red.name]
                m = w.fresh("m")
                w.emit(3, f"{m} = where({masks['r']}, {self.widened(red, text)}, {self.neutral(red)})")
                sums = [x for x, mx in online.items() if mx == red.name]
                if sums:   # running max per lane, the running sums of exp(E - max) rescaled
                    self.online_max_update(3, a, m, [accs[x][0] for x in sums])
                    for x in sums:
                        self.results[x] = ("", deps & {"k"})
                elif ai is None:
                    w.emit(3, f"{a} = {UPDATE[red.kind]}({a}, {m})")
                else:
                    better = w.fresh("better")
                    # a NaN beats every number and the lane keeps its first one, as torch.argmax
                    w.emit(3, f"{better} = logical_or({'gt' if red.kind == 'argmax' else 'lt'}({m}, {a}), "
                              f"logical_and(isnan({m}), logical_not(isnan({a}))))")
                    w.emit(3, f"{a} = where({better}, {m}, {a})")
                    w.emit(3, f"{ai} = where({better}, {r}, {ai})")
                self.results[red.name] = ("", deps & {"k"})
            if pairs:
                merged = {src: self.welford_merge(2, n, f"mul({n}, {m})", q, None, m) for src, (n, m, q) in lanes.items()}
                self.variance_results(2, pairs, merged, self.merge(kidx, None))
            for red in group:
                if red.name in pairs or red.name in sources:
                    continue
                a, ai = accs[red.name]
                res = w.fresh(red.name if red.name.isidentifier() else "red")
                if red.name in online:  # the lanes' sums, each rescaled to the row's max
                    am, mx = accs[online[red.name]][0], self.results[online[red.name]][0]
                    w.emit(2, f"{res} = reduce_sum(where(eq({am}, -inf), 0.0, mul({a}, exp(sub({am}, {mx})))), "
                              "axis=1, keepdim=1)")
                elif ai is None:
                    w.emit(2, f"{res} = reduce_{red.kind}({a}, axis=1, keepdim=1)")
                else:
                    best = w.fresh("best")
                    w.emit(2, f"{best} = reduce_{red.kind[3:]}({a}, axis=1, keepdim=1)")
                    # the max / min of the lanes is NaN exactly when a lane holds one: then the NaN lanes
                    w.emit(2, f"{res} = reduce_min(where(logical_or(eq({a}, {best}), isnan({a})), {ai}, {self.RN}), "
                              "axis=1, keepdim=1)")
                self.results[red.name] = (res, self.results[red.name][1])
        if any(o.domain == "full" for o in self.region.outputs):
            r, masks, ew, bidx = self.block_head(RB)
            ew.prepare(o.expr for o in self.region.outputs if o.domain == "full")
            self.store_outputs(3, ew, "full", bidx, masks)
        idx = self.merge(kidx, None)
        ew = ExprWriter(w, 2, self.leaf_fn(2, idx))
        ew.prepare(o.expr for o in self.region.outputs if o.domain == "reduced")
        self.store_outputs(2, ew, "reduced", idx, {"k": kmask})

    def block_head(self, RB: str) -> tuple[str, dict[str, str], ExprWriter, list[str | None]]:
        """Open a sequential loop over reduced blocks; its index tiles and an ExprWriter inside."""
        w = self.w
        r0, r = w.fresh("r0"), w.fresh("r")
        w.loop(2, r0, f"0, {self.RN}, {RB}", "pipeline", "core")
        w.emit(3, f"{r} = unsqueeze({r0} + iota({RB}), axis=0)")
        masks = {"k": self.kmask, "r": f"lt({r}, {self.RN})"}
        idx = self.merge(self.kidx, self.reduced_index(3, r))
        ew = ExprWriter(w, 3, self.leaf_fn(3, idx))
        return r, masks, ew, idx


def split_count(kn: int, rn: int, region: ReductionRegion) -> int:
    """Programs per kept element in the split form (1: no split).

    Few kept elements over a long reduced extent (a loss's mean, a norm over everything) would
    leave all the work to a handful of programs, each summing ~1e6 terms per lane in one f32 chain;
    split, each row's reduced extent is cut into chunks of at least 64K elements, up to about 2048
    programs in all: fifteen 4-warp programs per SM of an H200 keep enough loads in flight to
    stream near the copy bandwidth (a Frobenius norm over 1.9e9 elements ran 0.86x eager at 256
    chunks, 1.27x at 2048). Up to ``SPLIT_FEW_ROWS`` kept elements split from ``SPLIT_MIN_FEW``
    reduced elements on, in chunks of at least ``SPLIT_CHUNK_FEW``. argmax/argmin do not split."""
    if kn >= SPLIT_ROWS or any(r.kind in ("argmax", "argmin") for r in region.reductions):
        return 1
    if rn >= SPLIT_MIN_REDUCED:
        chunk_min = SPLIT_CHUNK_MIN
    elif kn <= SPLIT_FEW_ROWS and rn >= SPLIT_MIN_FEW:
        chunk_min = SPLIT_CHUNK_FEW
    else:
        return 1
    split = 1
    while split < SPLIT_MAX and kn * split * 2 <= SPLIT_PROGRAMS and rn // (split * 2) >= chunk_min:
        split *= 2
    return split


def emit_reduction(region: ReductionRegion, name: str, barriers: bool = False, stream: bool = False) -> str:
    """Sketch text of a reduction region (see the module docstring); ``barriers``: the target runs
    ``barrier`` statements (the Triton backend on a GPU), which the cooperative forms need;
    ``stream``: the streaming cooperative form may replace the split form (off by default)."""
    e = _Emitter(region, name, barriers, stream)
    return e.emit()
