"""The reduction emitter's split form: a long reduction over few kept elements, cut into chunks.

A mixin of ``akg_rag.lower.emit.reduction._Emitter`` (which decides when to split, in
``split_count``): it reads the emitter's sketch writer (``w``), region, kept and reduced symbols,
accumulator dtypes, leaf functions and output stores.
"""

from __future__ import annotations

from akg_rag.lower.emit.common import ExprWriter, decompose
from akg_rag.lower.region import Reduction, plain_inputs


class SplitMixin:
    """Sketch text of the split form (two launches per level of reductions)."""

    def split(self, split: int) -> None:
        """Split form, per level of reductions (a reduction reading another's result is one level
        later, as a variance reads its mean): one launch reduces chunk ``s`` of each kept
        element's reduced extent into ``part_*[kept..., s]`` (reading the earlier levels' results
        from ``res_*``), the next combines a kept element's ``SPLIT`` partials as one tile (a
        tree, fixed for a given ``SPLIT``) into ``res_*``; the last level's combine writes the
        reduced-domain outputs, and a final launch writes full-domain outputs chunk by chunk."""
        from akg_rag.lower.emit.reduction import LOOP_RBLOCK, UPDATE  # reduction.py imports this module
        from akg_rag.lower.region import Value

        w, r = self.w, self.region
        levels = self.levels()
        pairs = self.variance_pairs(levels)
        if pairs:  # a variance's partials join its mean's pass: count, sum, squared deviations
            levels = [levels[0] + levels[1]]
        sources = {s for s, _ in pairs.values()}
        SPLIT = w.param("SPLIT", split)
        RB = w.param("RBLOCK", LOOP_RBLOCK)
        ksyms = [self.syms[d] for d in self.kept]
        kshape = tuple(self.shape[d] for d in self.kept)
        parts, outs, welford = {}, {}, {}
        full = any(o.domain == "full" for o in r.outputs)
        for i, group in enumerate(levels):
            for red in group:
                dt = {"i64": "int64", "f64": "float64"}.get(self.acc_dtype(red), "float32")
                name = red.name if red.name.isidentifier() else ""
                if red.name not in pairs:
                    parts[red.name] = Value(w.fresh(f"part_{name}" if name else "part"), (*kshape, split), dt)
                    w.tensor(parts[red.name], ksyms + [SPLIT], "temp")
                if red.name in sources:  # its count and squared deviations, per chunk
                    welford[red.name] = tuple(Value(w.fresh(f"part_{k}{name}" if name else f"part_{k}"),
                                                    (*kshape, split), dt) for k in ("n", "q"))
                    for v in welford[red.name]:
                        w.tensor(v, ksyms + [SPLIT], "temp")
                if full or i < len(levels) - 1:  # read again by a later launch
                    outs[red.name] = Value(w.fresh(f"res_{name}" if name else "res"), kshape or (1,), dt)
                    w.tensor(outs[red.name], ksyms or ["1"], "temp")
        chunk = f"(({self.RN} + {SPLIT} * {RB} - 1) // ({SPLIT} * {RB}) * {RB})"
        self.KB = "1"

        def head(pid: str, rows_fast: bool = False) -> tuple[str, str, list[str]]:
            kk, sk = w.fresh("kk"), w.fresh("sk")
            if rows_fast:  # neighbouring programs: one chunk of consecutive kept elements
                w.emit(2, f"{kk} = unsqueeze({pid} % {self.KN} + iota(1), axis=1)")
                w.emit(2, f"{sk} = {pid} // {self.KN}")
            else:
                w.emit(2, f"{kk} = unsqueeze({pid} // {SPLIT} + iota(1), axis=1)")
                w.emit(2, f"{sk} = {pid} % {SPLIT}")
            kidx = decompose(w, 2, kk, ksyms, [f"k{d}" for d in self.kept])
            return kk, sk, kidx

        def chunk_loop(kk: str, sk: str, kidx: list[str]):
            r0, ri = w.fresh("r0"), w.fresh("r")
            w.loop(2, r0, f"0, {chunk}, {RB}", "pipeline", "core")
            w.emit(3, f"{ri} = unsqueeze({sk} * {chunk} + {r0} + iota({RB}), axis=0)")
            # chunk is a multiple of RBLOCK, so a block never crosses into the next chunk
            masks = {"k": f"lt({kk}, {self.KN})", "r": f"lt({ri}, {self.RN})"}
            idx = self.merge(kidx, self.reduced_index(3, ri))
            return masks, ExprWriter(w, 3, self.leaf_fn(3, idx)), idx

        def kept_access(v, kidx: list[str], extra: list[str]) -> str:
            return f"{v.name}[{', '.join(kidx + extra) if (kidx or extra) else '0'}]"

        def load_results(reds) -> None:
            """The combined results of ``reds`` (earlier launches), one value per kept element."""
            for red in reds:
                v = w.fresh(f"{red.name}_r" if red.name.isidentifier() else "red_r")
                w.emit(2, f"load({kept_access(outs[red.name], kidx, [] if self.kept else ['0'])} -> {v})")
                self.results[red.name] = (v, frozenset({"k"}))

        done: list[Reduction] = []
        for i, group in enumerate(levels):
            last = i == len(levels) - 1
            # partial reductions of this level, chunk by chunk
            w.emit(0, "")
            pid = w.fresh("pid")
            w.loop(1, pid, f"{self.KN} * {SPLIT}", "parallel")
            kk, sk, kidx = head(pid)
            load_results(done)
            accs = {}
            lanes = {src: self.welford_lanes(2, f"[1, {RB}]", src) for src in sources}
            for red in group:
                if red.name in pairs or red.name in sources:
                    continue
                a = w.fresh("acc")
                w.emit(2, f'{a} = alloc([1, {RB}], {self.acc_dtype(red)}, hint="accumulator", init={self.neutral(red)})')
                accs[red.name] = a
            masks, ew, _ = chunk_loop(kk, sk, kidx)
            ew.prepare(red.expr for red in group if red.name not in pairs)
            for red in group:
                if red.name in pairs:  # from its mean's lanes
                    continue
                text, _ = ew.write(red.expr)
                if red.name in sources:
                    self.welford_update(3, lanes[red.name], masks["r"], text)
                    continue
                m = w.fresh("m")
                w.emit(3, f"{m} = where({masks['r']}, {self.widened(red, text)}, {self.neutral(red)})")
                w.emit(3, f"{accs[red.name]} = {UPDATE[red.kind]}({accs[red.name]}, {m})")
            for red in group:
                if red.name in pairs:
                    continue
                if red.name in sources:  # the chunk's count, sum and squared deviations
                    n, mu, q = lanes[red.name]
                    got = self.welford_merge(2, n, f"mul({n}, {mu})", q, None, mu)
                    for v, x in zip((welford[red.name][0], parts[red.name], welford[red.name][1]), got):
                        w.emit(2, f"store({x} -> {kept_access(v, kidx, [sk])})")
                    continue
                p = w.fresh("p")
                w.emit(2, f"{p} = reduce_{red.kind}({accs[red.name]}, axis=1, keepdim=1)")
                w.emit(2, f"store({p} -> {kept_access(parts[red.name], kidx, [sk])})")
            # combine: all SPLIT partials of a kept element in one tile, one load in flight per lane
            w.emit(0, "")
            pid = w.fresh("pid")
            w.loop(1, pid, self.KN if self.kept else "1", "parallel")
            kk = w.fresh("kk")
            w.emit(2, f"{kk} = unsqueeze({pid} + iota(1), axis=1)")
            kidx = decompose(w, 2, kk, ksyms, [f"k{d}" for d in self.kept])
            if last:  # the reduced-domain outputs may read any level's result
                load_results(done)
            s_i = w.fresh("s")
            w.emit(2, f"{s_i} = unsqueeze(iota({SPLIT}), axis=0)")
            merged = {}
            for red in group:
                if red.name in pairs:
                    continue
                a, pv = w.fresh("tot"), w.fresh("pv")
                w.emit(2, f"load({kept_access(parts[red.name], kidx, [s_i])} -> {pv})")
                if red.name in sources:  # the chunks' counts, sums and squared deviations merged
                    pn, pq = w.fresh("pn"), w.fresh("pq")
                    w.emit(2, f"load({kept_access(welford[red.name][0], kidx, [s_i])} -> {pn})")
                    w.emit(2, f"load({kept_access(welford[red.name][1], kidx, [s_i])} -> {pq})")
                    merged[red.name] = self.welford_merge(2, pn, pv, pq, f"lt({s_i}, {SPLIT})")
                    continue
                w.emit(2, f"{a} = reduce_{red.kind}(where(lt({s_i}, {SPLIT}), {pv}, {self.neutral(red)}), axis=1, keepdim=1)")
                self.results[red.name] = (a, frozenset({"k"}))
            if pairs:
                self.variance_results(2, pairs, merged, self.merge(kidx, None))
            for red in group:
                if red.name in outs:
                    w.emit(2, f"store({self.results[red.name][0]} -> "
                              f"{kept_access(outs[red.name], kidx, [] if self.kept else ['0'])})")
            done += group
        idx = self.merge(kidx, None)
        ew = ExprWriter(w, 2, self.leaf_fn(2, idx))
        ew.prepare(o.expr for o in r.outputs if o.domain == "reduced")
        self.store_outputs(2, ew, "reduced", idx, {"k": f"lt({kk}, {self.KN})"})
        if not full:
            return
        # full-domain outputs, chunk by chunk, reading the combined results; where they read an
        # input that varies along the reduced dims only (a layer norm's weight), the programs of
        # one chunk over all kept elements run side by side and share its blocks through L2
        w.emit(0, "")
        pid = w.fresh("pid")
        w.loop(1, pid, f"{self.KN} * {SPLIT}" if self.kept else SPLIT, "parallel")
        kk, sk, kidx = head(pid, bool(self.kept) and self.shared_along_kept())
        load_results(done)
        masks, ew, idx = chunk_loop(kk, sk, kidx)
        ew.prepare(o.expr for o in r.outputs if o.domain == "full")
        self.store_outputs(3, ew, "full", idx, masks)

    def shared_along_kept(self) -> bool:
        """Whether a full-domain output reads an input that varies along the reduced dims but
        not along the kept ones (each kept element reads the same blocks of it)."""
        names = plain_inputs([o.expr for o in self.region.outputs if o.domain == "full"])
        for name in names:
            amap = self.amaps.get(name)
            if amap is None:
                continue
            dims = {d for d in amap if d is not None}
            if dims and not dims & set(self.kept):
                return True
        return False
