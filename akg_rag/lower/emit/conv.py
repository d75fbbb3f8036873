"""Convolution regions (1-D/2-D/3-D, stride, padding, dilation, groups, transposed), bias and
epilogue fused.

Four forms:

* tap by tap (ungrouped, input channels a multiple of 16): one loop over (tap, channel block)
  steps; each step's ``[BM pixels, BK channels]`` patch tile gathers the pixels' input positions
  for that tap and slices the channels, and the weight tile slices ``[BN channels, BK channels]``
  at that tap (``[BK, BN]`` of a transposed weight), so the tap indices are scalars and both
  operands run along K through a tensor dim (the channels): the host can copy them K-major
  (channels-last) for split TF32 products. On a tensor-core target, a plain conv whose input
  channels are not a multiple of 16 (an RGB input's 3) and that runs at stride 1 takes this
  form too (a strided one keeps the implicit GEMM: measured slower padded), on channels-last
  copies zero-padded to a multiple of 16 that two launches write first (``padded_copies``): the
  zero channels add nothing, and every step's operand tiles are contiguous along K (16-byte
  loads, split TF32 products) where the implicit GEMM gathers them through ``//`` and ``%``.
  A transposed conv at stride 1 reads one input position
  a tap as a plain one does; a strided one is walked phase by phase (``_phase_rows``: each
  program's outputs share ``o mod s``, and its steps visit only the taps that reach them);
* implicit GEMM (grouped, or few input channels): per group, ``[BM pixels, BK taps] x
  [BK taps, BN channels]`` tiles; pixel and tap indices come from ``//`` and ``%`` of flat index
  tiles built with ``unsqueeze``;
* tiled direct (one input channel per group, as in depthwise convolution, few output channels
  per group, not transposed): the pooling emitter's tiles (akg_rag.lower.emit.pool) -- a program
  owns ``BH x BW`` outputs of the last two spatial dims (``BW`` of a 1-D conv) of one (image,
  output channel, leading spatial index), so every tap's input positions are a column plus a row
  vector, with no division per element; the tap loops run to the kernel's sizes as literals
  (the weight is declared with them), unrolled where the kernel is small, and at stride 1 along
  the last dim the window loop asks for an interior version without bounds masks;
* direct (other few-output-channel groups, where a GEMM tile would be mostly empty): one program
  per (image, output channel, ``BLOCK`` pixels), sequential loops over the group's input channels
  and the kernel taps, one scalar weight per tap.

Input positions outside the image read 0 (padding), so no bounds logic runs per tap.

Transposed convolution gathers: the input position of output ``o`` and tap ``k`` is
``(o + p - k*d) / s`` when that is a whole number in range; otherwise the index is -1 (masked).
"""

from __future__ import annotations

import math

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, align, cdiv_text, decompose, fit, next_pow2, prod_text,
)
from akg_rag.lower.emit.pool import tap_unroll, tile_extents, tile_lanes, window_interior
from akg_rag.lower.region import ConvRegion, Expr, Value

DIRECT_MAX_OG = 8   # output channels per group below which the direct form is used
CONV_BM = 64          # pixels per implicit-GEMM tile, at most (see implicit_gemm)
# input channels the tap-by-tap form needs a multiple of: its K steps are channel blocks of 16 or
# 32 (tl.dot's K is at least 16), and the split products need K a multiple of 16; with fewer
# channels (an RGB input's 3) a block per tap would be mostly empty, where the implicit GEMM's
# flat (c, kh, kw) K packs the taps (27 in 32)
TAPWISE_CHANNELS = 16


class _Conv:
    def __init__(self, r: ConvRegion, name: str, literal_kernel: bool = False) -> None:
        self.r = r
        nd = len(r.x.shape) - 2
        if nd < 1 or len(r.shape) != nd + 2 or len(r.w.shape) != nd + 2:
            raise ValueError("a conv region needs x [N, C, *S], w [., ., *K] and a result [N, O, *S']")
        self.nd, G = nd, r.groups
        self.epi = [v for v in r.inputs if r.bias is None or v.name != r.bias.name]
        vals = [r.x, r.w, *([r.bias] if r.bias else []), *self.epi, *(o.value for o in r.outputs)]
        self.w = w = SketchWriter(name, vals)
        sp = "DHW"[3 - nd:] if nd <= 3 else "".join(f"S{i}" for i in range(nd))
        self.N = w.symbol("N")
        self.S = [w.symbol(c) for c in sp]                 # input spatial sizes
        self.OS = [w.symbol(f"O{c}") for c in sp]          # output spatial sizes
        # kernel sizes: symbols, or the weight's own sizes as literals (loops the compiler unrolls)
        self.KS = [str(k) for k in r.w.shape[2:]] if literal_kernel else [w.symbol(f"K{c}") for c in sp]
        if r.transposed:   # w: [C, O/G, *K]
            self.C, self.OG = w.symbol("C"), w.symbol("OG")
            self.CG, self.O = (f"({self.C} // {G})" if G > 1 else self.C), (f"{self.OG} * {G}" if G > 1 else self.OG)
            w.tensor(r.x, [self.N, self.C, *self.S], "in")
            w.tensor(r.w, [self.C, self.OG, *self.KS], "in")
        else:              # w: [O, C/G, *K]
            self.O, self.CG = w.symbol("O"), w.symbol("CG")
            self.C, self.OG = (f"{self.CG} * {G}" if G > 1 else self.CG), (f"({self.O} // {G})" if G > 1 else self.O)
            w.tensor(r.x, [self.N, self.C, *self.S], "in")
            w.tensor(r.w, [self.O, self.CG, *self.KS], "in")
        if r.bias is not None:
            w.tensor(r.bias, [self.O], "in")
        self.osyms = [self.N, self.O, *self.OS]
        self.amaps = {}
        for v in self.epi:
            self.amaps[v.name] = align(v, tuple(r.shape))
            w.tensor(v, [self.osyms[d] if d is not None else "1" for d in self.amaps[v.name]], "in")
        for o in r.outputs:
            if tuple(o.value.shape) != tuple(r.shape):
                raise ValueError(f"output {o.value.name} {o.value.shape} is not the conv result {r.shape}")
            w.tensor(o.value, self.osyms, "out")
        self.f_acc = "f64" if r.x.dtype == "float64" else "f32"

    def in_pos(self, depth: int, out: str, tap: str, i: int) -> str:
        """The input index along spatial dim ``i`` for output index ``out`` and tap ``tap``."""
        r, w = self.r, self.w
        s, p, d = r.stride[i], r.padding[i], r.dilation[i]
        pos = w.fresh(f"p{i}")
        tap_d = tap if d == 1 else f"{tap} * {d}"
        if not r.transposed:
            w.emit(depth, f"{pos} = {out}{f' * {s}' if s != 1 else ''}{f' - {p}' if p else ''} + {tap_d}")
            return pos
        w.emit(depth, f"{pos} = {out}{f' + {p}' if p else ''} - {tap_d}")
        if s == 1:
            return pos  # a negative index is out of range: masked
        ok, nn = w.fresh("ok"), w.fresh("nn")
        w.emit(depth, f"{ok} = ge({pos}, 0)")
        w.emit(depth, f"{nn} = where({ok}, {pos}, 0)")  # // and % on non-negative operands only
        ix = w.fresh(f"i{i}")
        w.emit(depth, f"{ix} = where(logical_and({ok}, eq({nn} % {s}, 0)), {nn} // {s}, -1)")
        return ix

    def epilogue(self, depth: int, acc: str, acc_deps: Deps, oidx: list[str], chan: str,
                 masks: dict[str, str], need: list[str], dep_of: dict[int, str]) -> None:
        """Bias, epilogue and stores; ``oidx`` indexes the output (N, O, *S'); ``dep_of`` maps an
        output dim to the tile axis it varies along."""
        w, r = self.w, self.r
        v = acc
        if r.bias is not None:
            bv = w.fresh("bias_v")
            w.emit(depth, f"load({r.bias.name}[{chan}] -> {bv})")
            v = w.fresh("acc_b")
            w.emit(depth, f"{v} = add({acc}, {bv})")
        by_name = {x.name: x for x in self.epi}
        loaded: dict[str, tuple[str, Deps]] = {}

        def leaf(e: Expr) -> tuple[str, Deps]:
            if e.op == "acc":
                return v, acc_deps
            if e.op != "input" or e.ref not in by_name:
                raise ValueError(f"a conv epilogue has no {e.op} leaf {e.ref or ''} (bias is added before it)")
            if e.ref not in loaded:
                x, amap = by_name[e.ref], self.amaps[e.ref]
                local = w.fresh(f"{x.name}_v")
                parts = [oidx[d] if d is not None else "0" for d in amap]
                w.emit(depth, f"load({x.name}[{', '.join(parts or ['0'])}] -> {local})")
                deps = {dep_of[d] for d in amap if d is not None and d in dep_of}
                loaded[e.ref] = (local, frozenset(deps) if deps else NO_DEPS)
            return loaded[e.ref]

        ew = ExprWriter(w, depth, leaf)
        ew.prepare(o.expr for o in r.outputs)
        for o in r.outputs:
            text, deps = ew.write(o.expr)
            local = w.fresh(f"{o.value.name}_o")
            w.emit(depth, f"{local} = {fit(text, deps, need, masks)}")
            w.emit(depth, f"store({local} -> {o.value.name}[{', '.join(oidx)}])")

    # ---- the two GEMM forms' shared parts ------------------------------------------------------
    def _gemm_tile(self, pixels: str, tn: str, BM: str, BN: str, og: str,
                   group_base: str | None) -> tuple[str, list[str], str, str, str]:
        """A GEMM form's output tile: the ``[BM, 1]`` output pixels ``pixels`` decomposed into
        (image, spatial) indices, the ``[1, BN]`` channels of column tile ``tn`` (``-1`` from
        ``og`` on; offset by ``group_base`` in a grouped conv) and the zeroed accumulator."""
        w = self.w
        pm = w.fresh("pm")
        w.emit(2, f"{pm} = {pixels}")
        pix = decompose(w, 2, pm, [self.N, *self.OS], ["n"] + [f"o{i}" for i in range(self.nd)])
        oc, co = w.fresh("oc"), w.fresh("co")
        w.emit(2, f"{oc} = unsqueeze({tn} * {BN} + iota({BN}), axis=0)")
        w.emit(2, f"{co} = where(lt({oc}, {og}), {f'{group_base} + {oc}' if group_base else oc}, -1)")
        acc = w.fresh("acc")
        w.emit(2, f'{acc} = alloc([{BM}, {BN}], {self.f_acc}, hint="accumulator", tier="register", init=0)')
        return pm, pix, oc, co, acc

    def _gemm_epilogue(self, acc: str, pm: str, pix: list[str], oc: str, co: str, NP: str, og: str) -> str:
        """Bias, epilogue and stores of a GEMM form's ``[BM, BN]`` accumulator; the sketch text."""
        oidx = [pix[0], co, *pix[1:]]
        masks = {"m": f"lt({pm}, {NP})", "n": f"lt({oc}, {og})"}
        dep_of = {0: "m", 1: "n", **{2 + i: "m" for i in range(self.nd)}}
        self.epilogue(2, acc, frozenset({"m", "n"}), oidx, co, masks, ["m", "n"], dep_of)
        return self.w.text()

    # ---- implicit GEMM ---------------------------------------------------------------------------
    def implicit_gemm(self) -> str:
        w, r, G = self.w, self.r, self.r.groups
        shape = r.shape
        npix = shape[0] * math.prod(shape[2:])
        og = shape[1] // G
        taps = (r.x.shape[1] // G) * math.prod(r.w.shape[2:])
        # the [BM, BK] pixel tile is gathered through computed addresses, which cost registers:
        # compiled for sm_90, BM = 128 spilled (0.1-2 KB a thread) for every KernelBench conv,
        # BM = 64 with BN up to 128 on eight warps did not (akg_rag.lower.offline)
        BM = w.param("BM", min(CONV_BM, max(16, next_pow2(npix))))
        BN = w.param("BN", min(128, max(16, next_pow2(og))))
        BK = w.param("BK", min(32, max(16, next_pow2(taps))))
        NP = prod_text([self.N, *self.OS])
        KG = prod_text([self.CG, *self.KS])
        TM, TN = cdiv_text(NP, BM), cdiv_text(self.OG, BN)
        pid = w.fresh("pid")
        w.loop(1, pid, f"{G} * {TM} * {TN}" if G > 1 else f"{TM} * {TN}", "parallel")
        g, t, tm, tn = (w.fresh(s) for s in ("g", "t", "tm", "tn"))
        w.emit(2, f"{g} = {pid} // ({TM} * {TN})")
        w.emit(2, f"{t} = {pid} % ({TM} * {TN})")
        w.emit(2, f"{tm} = {t} // {TN}")
        w.emit(2, f"{tn} = {t} % {TN}")
        pm, pix, oc, co, acc = self._gemm_tile(f"unsqueeze({tm} * {BM} + iota({BM}), axis=1)", tn, BM, BN,
                                               self.OG, f"{g} * {self.OG}")
        k0 = w.fresh("k0")
        w.loop(2, k0, f"0, {KG}, {BK}", "pipeline", "core")
        ka, kb = w.fresh("ka"), w.fresh("kb")
        w.emit(3, f"{ka} = unsqueeze({k0} + iota({BK}), axis=0)")
        ta_idx = decompose(w, 3, ka, [self.CG, *self.KS], ["c"] + [f"t{i}" for i in range(self.nd)])
        ci = w.fresh("ci")
        w.emit(3, f"{ci} = where(lt({ka}, {KG}), {g} * {self.CG} + {ta_idx[0]}, -1)")
        pos = [self.in_pos(3, pix[1 + i], ta_idx[1 + i], i) for i in range(self.nd)]
        xa = w.fresh("xa")
        w.emit(3, f"load({r.x.name}[{', '.join([pix[0], ci, *pos])}] -> {xa})")
        w.emit(3, f"{kb} = unsqueeze({k0} + iota({BK}), axis=1)")
        tb_idx = decompose(w, 3, kb, [self.CG, *self.KS], ["cb"] + [f"u{i}" for i in range(self.nd)])
        wb = w.fresh("wb")
        if r.transposed:
            cib = w.fresh("cib")
            w.emit(3, f"{cib} = where(lt({kb}, {KG}), {g} * {self.CG} + {tb_idx[0]}, -1)")
            w.emit(3, f"load({r.w.name}[{', '.join([cib, oc, *tb_idx[1:]])}] -> {wb})")
        else:
            w.emit(3, f"load({r.w.name}[{', '.join([co, *tb_idx])}] -> {wb})")
        w.emit(3, f"{acc} = add({acc}, matmul({xa}, {wb}))")
        return self._gemm_epilogue(acc, pm, pix, oc, co, NP, self.OG)

    # ---- tap by tap ------------------------------------------------------------------------------
    def tapwise(self, padded: bool = False) -> str:
        w, r = self.w, self.r
        shape = r.shape
        npix = shape[0] * math.prod(shape[2:])
        xcl = wcl = None
        channels = r.x.shape[1]
        if padded:   # channels-last copies, zero-padded to whole 16-channel blocks
            xcl, wcl, channels = self.padded_copies()
        BM = w.param("BM", min(CONV_BM, max(16, next_pow2(npix))))
        BN = w.param("BN", min(128, max(16, next_pow2(shape[1]))))
        BK = w.param("BK", 32 if channels % 32 == 0 else 16)   # whole blocks of the channels
        NP = prod_text([self.N, *self.OS])
        TN = cdiv_text(self.O, BN)
        CB = cdiv_text(str(channels) if padded else self.CG, BK)
        # a strided transposed conv walks its outputs phase by phase (``_phase_rows``)
        phased = r.transposed and any(st > 1 for st in r.stride)
        PQ = prod_text([self.N, *(cdiv_text(o, st) if phased else o for o, st in zip(self.OS, r.stride))])
        TM = cdiv_text(PQ, BM)
        pid, tm, tn = (w.fresh(s) for s in ("pid", "tm", "tn"))
        if phased:
            ph = w.fresh("ph")
            w.loop(1, pid, f"{math.prod(r.stride)} * {TM} * {TN}", "parallel")
            w.emit(2, f"{ph} = {pid} // ({TM} * {TN})")
            w.emit(2, f"{tm} = {pid} % ({TM} * {TN}) // {TN}")
        else:
            w.loop(1, pid, f"{TM} * {TN}", "parallel")
            w.emit(2, f"{tm} = {pid} // {TN}")
        w.emit(2, f"{tn} = {pid} % {TN}")
        # pixel indices twice: rank 1 for the gathered patch rows, rank 2 ([BM, 1]) for the epilogue
        pr = w.fresh("pr")
        w.emit(2, f"{pr} = {tm} * {BM} + iota({BM})")
        if phased:
            prow, taps_of = self._phase_rows(pr, ph, PQ, NP)
            pixels = f"unsqueeze({prow.pop()}, axis=1)"
        else:
            prow = decompose(w, 2, pr, [self.N, *self.OS], ["nr"] + [f"r{i}" for i in range(self.nd)])
            pixels = f"unsqueeze({pr}, axis=1)"
        pm, pix, oc, co, acc = self._gemm_tile(pixels, tn, BM, BN, self.O, None)
        step = w.fresh("step")
        counts = taps_of["counts"] if phased else self.KS
        w.loop(2, step, f"0, {prod_text(counts)} * {CB}", "pipeline", "core")
        tap, c0 = w.fresh("tap"), w.fresh("c0")
        w.emit(3, f"{tap} = {step} // {CB}")
        w.emit(3, f"{c0} = {step} % {CB} * {BK}")
        taps = decompose(w, 3, tap, counts, [f"t{i}" for i in range(self.nd)])
        if phased:
            taps, pos = taps_of["at"](taps)
        else:
            pos = [self.in_pos(3, prow[1 + i], taps[i], i) for i in range(self.nd)]
        xa, wb, n0 = w.fresh("xa"), w.fresh("wb"), w.fresh("n0")
        chan = f"{c0}:{c0} + {BK}"
        if xcl is not None:   # [BM, BK] and [BN, BK] tiles, contiguous along the channels
            w.emit(3, f"load({xcl}[{', '.join([prow[0], *pos, chan])}] -> {xa})")
            w.emit(3, f"{n0} = {tn} * {BN}")
            w.emit(3, f"load({wcl}[{', '.join([f'{n0}:{n0} + {BN}', *taps, chan])}] -> {wb})")
            w.emit(3, f"{acc} = add({acc}, matmul({xa}, transpose({wb})))")
            return self._gemm_epilogue(acc, pm, pix, oc, co, NP, self.O)
        w.emit(3, f"load({r.x.name}[{', '.join([prow[0], chan, *pos])}] -> {xa})")
        w.emit(3, f"{n0} = {tn} * {BN}")
        if r.transposed:   # w: [C, O, *K], so the slice is [BK, BN] already
            w.emit(3, f"load({r.w.name}[{', '.join([f'{c0}:{c0} + {BK}', f'{n0}:{n0} + {BN}', *taps])}] -> {wb})")
            w.emit(3, f"{acc} = add({acc}, matmul({xa}, {wb}))")
        else:
            w.emit(3, f"load({r.w.name}[{', '.join([f'{n0}:{n0} + {BN}', f'{c0}:{c0} + {BK}', *taps])}] -> {wb})")
            w.emit(3, f"{acc} = add({acc}, matmul({xa}, transpose({wb})))")
        return self._gemm_epilogue(acc, pm, pix, oc, co, NP, self.O)

    def padded_copies(self) -> tuple[str, str, int]:
        """Two launches writing ``temp`` channels-last copies of the input ``[N, *S, CP]`` and the
        weight ``[O, *K, CP]``, channels zero-padded to ``CP``, the next multiple of 16; returns
        their names and ``CP``. Each program copies ``[BR, CP]``: ``BR`` rows (image and spatial
        position, or output channel and tap) of all channels, read along the rows (contiguous in
        the source) and written along the channels."""
        w, r = self.w, self.r
        cp = -(-r.x.shape[1] // TAPWISE_CHANNELS) * TAPWISE_CHANNELS
        BR = w.param("BR", 64)
        names = []
        for src, lead, trail, tag in ((r.x, self.N, self.S, "xcl"), (r.w, self.O, self.KS, "wcl")):
            dst = Value(w.fresh(tag), (src.shape[0], *src.shape[2:], cp), src.dtype)
            w.tensor(dst, [lead, *trail, str(cp)], "temp")
            rows = prod_text([lead, *trail])
            w.emit(0, "")
            pid, row, c, ci = (w.fresh(x) for x in ("pid", "row", "c", "ci"))
            w.loop(1, pid, cdiv_text(rows, BR), "parallel")
            w.emit(2, f"{row} = unsqueeze({pid} * {BR} + iota({BR}), axis=1)")
            w.emit(2, f"{c} = unsqueeze(iota({cp}), axis=0)")
            idx = decompose(w, 2, row, [lead, *trail], ["l"] + [f"s{i}" for i in range(len(trail))])
            # channels past the source's read nothing (0); rows past the end neither read nor write
            w.emit(2, f"{ci} = where(logical_and(lt({c}, {self.CG}), lt({row}, {rows})), {c}, -1)")
            v = w.fresh("v")
            w.emit(2, f"load({src.name}[{', '.join([idx[0], ci, *idx[1:]])}] -> {v})")
            w.emit(2, f"store({v} -> {dst.name}[{', '.join([*idx, f'where(lt({row}, {rows}), {c}, -1)'])}])")
            names.append(dst.name)
        w.emit(0, "")
        return names[0], names[1], cp

    def _phase_rows(self, pr: str, ph: str, PQ: str, NP: str) -> tuple[list[str], dict]:
        """A strided transposed conv's outputs by phase: output ``o = q*s + f`` along each spatial
        dim, ``f`` the program's phase (a scalar from ``ph``), ``q`` from the flat row index
        ``pr``. Tap ``k`` reaches output ``o`` from input ``(o + p - k*d) / s`` only where that
        divides, which for a given ``f`` holds for the taps ``k0 + j*(s / gcd(s, d))``: the
        program walks those alone (``k0`` and their count looked up per phase, literals of the
        task), and the input position is ``q`` plus a scalar. Loop bounds are the most taps any
        phase has (a phase with fewer reads its missing ones as index -1: nothing). Returns the
        patch rows' indices (image, then the spatial ones, then the output's flat pixel index,
        ``NP`` where the row lies past the output) and ``{"counts": taps per dim, "at": taps and
        positions of step indices}``."""
        w, r = self.w, self.r
        fs = decompose(w, 2, ph, [str(st) for st in r.stride], [f"f{i}" for i in range(self.nd)])
        qs = decompose(w, 2, pr, [self.N, *(cdiv_text(o, st) for o, st in zip(self.OS, r.stride))],
                       ["nr"] + [f"q{i}" for i in range(self.nd)])
        flat, valid = qs[0], f"lt({pr}, {PQ})"
        outs = []
        for i, (st, q) in enumerate(zip(r.stride, qs[1:])):
            o = w.fresh(f"o{i}")
            w.emit(2, f"{o} = {q} * {st} + {fs[i]}")
            outs.append(o)
            flat = f"({flat}) * {self.OS[i]} + {o}"
            valid = f"logical_and({valid}, lt({o}, {self.OS[i]}))"
        pflat = w.fresh("pflat")
        w.emit(2, f"{pflat} = where({valid}, {flat}, {NP})")
        k0s, counts = [], []
        for i, (st, p, d, k) in enumerate(zip(r.stride, r.padding, r.dilation, r.w.shape[2:])):
            table = []
            for f in range(st):
                ks = [t for t in range(k) if (f + p - t * d) % st == 0]
                table.append((ks[0] if ks else 0, len(ks)))
            k0, cnt = w.fresh(f"k0_{i}"), w.fresh(f"nk{i}")
            for name, col in ((k0, 0), (cnt, 1)):
                text = str(table[-1][col])
                for f in range(st - 2, -1, -1):
                    text = f"where(eq({fs[i]}, {f}), {table[f][col]}, {text})"
                w.emit(2, f"{name} = {text}")
            k0s.append(k0)
            counts.append((cnt, str(max(c for _, c in table))))

        def at(js: list[str]) -> tuple[list[str], list[str]]:
            taps, pos = [], []
            for i, (st, p, d) in enumerate(zip(r.stride, r.padding, r.dilation)):
                step = st // math.gcd(st, d)
                k, x = w.fresh(f"k{i}"), w.fresh(f"p{i}")
                # past the phase's taps: index -1 on both operands (nothing read)
                w.emit(3, f"{k} = where(lt({js[i]}, {counts[i][0]}), {k0s[i]} + {js[i]} * {step}, -1)")
                # exact: (f + p - k*d) is a multiple of s for these taps
                w.emit(3, f"{x} = where(ge({k}, 0), {qs[1 + i]} + ({fs[i]} + {p} - {k} * {d}) // {st}, -1)")
                taps.append(k)
                pos.append(x)
            return taps, pos

        return [qs[0], *outs, pflat], {"counts": [m for _, m in counts], "at": at}

    # ---- direct ----------------------------------------------------------------------------------
    def direct(self) -> str:
        w, r, G = self.w, self.r, self.r.groups
        BLOCK = w.param("BLOCK", min(512, max(16, next_pow2(math.prod(r.shape[2:])))))
        P = prod_text(self.OS)
        TP = cdiv_text(P, BLOCK)
        pid = w.fresh("pid")
        w.loop(1, pid, f"{self.N} * {self.O} * {TP}", "parallel")
        nco, tp, n, co, g = (w.fresh(s) for s in ("nco", "tp", "n", "co", "g"))
        w.emit(2, f"{nco} = {pid} // {TP}")
        w.emit(2, f"{tp} = {pid} % {TP}")
        w.emit(2, f"{n} = {nco} // ({self.O})")
        w.emit(2, f"{co} = {nco} % ({self.O})")
        w.emit(2, f"{g} = {co} // {self.OG}" if G > 1 else f"{g} = 0")
        pix = w.fresh("pix")
        w.emit(2, f"{pix} = {tp} * {BLOCK} + iota({BLOCK})")
        outs = decompose(w, 2, pix, self.OS, [f"o{i}" for i in range(self.nd)])
        acc = w.fresh("acc")
        w.emit(2, f'{acc} = alloc([{BLOCK}], {self.f_acc}, hint="accumulator", init=0)')
        c = w.fresh("c")
        w.loop(2, c, self.CG)
        taps = [w.fresh(f"k{i}") for i in range(self.nd)]
        for i, k in enumerate(taps):
            w.loop(3 + i, k, self.KS[i])
        depth = 3 + self.nd
        pos = [self.in_pos(depth, outs[i], taps[i], i) for i in range(self.nd)]
        xv, wv = w.fresh("xv"), w.fresh("wv")
        w.emit(depth, f"load({r.x.name}[{', '.join([n, f'{g} * {self.CG} + {c}', *pos])}] -> {xv})")
        if r.transposed:
            w.emit(depth, f"load({r.w.name}[{', '.join([f'{g} * {self.CG} + {c}', f'{co} - {g} * {self.OG}', *taps])}] -> {wv})")
        else:
            w.emit(depth, f"load({r.w.name}[{', '.join([co, c, *taps])}] -> {wv})")
        w.emit(depth, f"{acc} = add({acc}, mul({xv}, {wv}))")
        oidx = [n, co, *outs]
        dep_of = {2 + i: "t" for i in range(self.nd)}
        self.epilogue(2, acc, frozenset({"t"}), oidx, co, {"t": f"lt({pix}, {P})"}, ["t"], dep_of)
        return w.text()

    def tiled(self) -> str:
        """The tiled direct form (module docstring): one input channel a group."""
        w, r, nd = self.w, self.r, self.nd
        tdims = min(nd, 2)
        bh, bw = tile_extents(tuple(r.shape), r.stride[nd - tdims:], tdims)
        plane = [self.N, self.O, *self.OS[:nd - tdims]]
        blocks = []
        if tdims == 2:
            blocks.append((self.OS[-2], w.param("BH", bh), "h"))
        blocks.append((self.OS[-1], w.param("BW", bw), "w"))
        counts = [cdiv_text(ext, b) for ext, b, _ in blocks]
        pid = w.fresh("pid")
        w.loop(1, pid, prod_text([*plane, *counts]), "parallel")
        names = ["n", "co", *(f"o{i}" for i in range(nd - tdims)), *(f"b{a}" for *_, a in blocks)]
        split = decompose(w, 2, pid, [*plane, *counts], names)
        n, co, outs = split[0], split[1], split[2:len(plane)]
        masks: dict[str, str] = {}
        dep_of: dict[int, str] = {}
        for o, axis, mask in tile_lanes(w, blocks, split[len(plane):], tdims):
            dep_of[2 + len(outs)] = axis
            outs.append(o)
            masks[axis] = mask
        ci = co if r.groups == r.shape[1] else f"{co} // {self.OG}"   # the group's input channel
        acc = w.fresh("acc")
        tile = [b for _, b, _ in blocks]
        w.emit(2, f'{acc} = alloc([{", ".join(tile)}], {self.f_acc}, hint="accumulator", init=0)')
        taps = [w.fresh(f"k{i}") for i in range(nd)]
        kernel = tuple(int(k) for k in r.w.shape[2:])
        for i, k in enumerate(taps):   # the window: an interior version without bounds masks
            w.loop(2 + i, k, self.KS[i], *tap_unroll(kernel), more=window_interior(r.stride) if i == 0 else ())
        depth = 2 + nd
        pos = [self.in_pos(depth, outs[i], taps[i], i) for i in range(nd)]
        xv, wv = w.fresh("xv"), w.fresh("wv")
        w.emit(depth, f"load({r.x.name}[{', '.join([n, f'{ci} * {self.CG}', *pos])}] -> {xv})")
        w.emit(depth, f"load({r.w.name}[{', '.join([co, '0', *taps])}] -> {wv})")
        w.emit(depth, f"{acc} = add({acc}, mul({xv}, {wv}))")
        axes = list(masks)
        self.epilogue(2, acc, frozenset(axes), [n, co, *outs], co, masks, axes, dep_of)
        return w.text()


def emit_conv(region: ConvRegion, name: str, tensor_cores: bool = False) -> str:
    """Sketch text of a convolution region (see the module docstring); ``tensor_cores``: the
    target multiplies tiles on tensor cores (Triton on a GPU), so channels that are not whole
    16-channel blocks are worth padding for the tap-by-tap form."""
    few = region.shape[1] // region.groups < DIRECT_MAX_OG
    if few and not region.transposed and region.w.shape[1] == 1:
        return _Conv(region, name, literal_kernel=True).tiled()
    if tensor_cores and not few and region.groups == 1 and not region.transposed \
            and region.x.shape[1] % TAPWISE_CHANNELS and all(s == 1 for s in region.stride):
        return _Conv(region, name).tapwise(padded=True)
    tapwise = not few and region.groups == 1 and region.x.shape[1] % TAPWISE_CHANNELS == 0
    # transposed ones too (tapwise): a strided one's taps per phase are literals of its kernel
    phased = tapwise and region.transposed and any(s > 1 for s in region.stride)
    c = _Conv(region, name, literal_kernel=phased)
    if few:
        return c.direct()
    return c.tapwise() if tapwise else c.implicit_gemm()
