"""GEMM regions: ``acc = a @ b`` (batched, broadcast batch dims) with the epilogue fused.

One program per (batch, ``BM`` x ``BN`` output tile); tiles are ordered in groups of ``GROUP_M``
row tiles so that neighbouring programs share operand tiles in L2. A sequential K loop multiplies
``[BM, BK] x [BK, BN]`` tiles into an f32 accumulator (f64 for f64 data); the epilogue runs on the
accumulator tile, operands broadcast along M or N are loaded as ``[BM, 1]`` / ``[1, BN]`` tiles;
the store is masked by the tensor bounds.
"""

from __future__ import annotations

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, align, cdiv_text, decompose, declare_inputs, fit, next_pow2,
    prod_text,
)
from akg_rag.lower.region import Expr, GemmRegion, Value


def tile_defaults(m: int, n: int, k: int) -> tuple[int, int, int]:
    """(BM, BN, BK) for the captured sizes: 128x128x32 for large problems, smaller for small ones
    (tl.dot needs >= 16 on every side)."""
    bm = min(128, max(16, next_pow2(m)))
    bn = min(128, max(16, next_pow2(n)))
    bk = min(64 if max(bm, bn) <= 64 else 32, max(16, next_pow2(k)))
    return bm, bn, bk


def emit_gemm(region: GemmRegion, name: str) -> str:
    """Sketch text of a GEMM region (see the module docstring)."""
    shape = tuple(region.shape)
    a, b = region.a, region.b
    if len(shape) < 2 or len(a.shape) < 2 or len(b.shape) < 2:
        raise ValueError("a GEMM region needs operands and result of rank >= 2")
    values = [a, b, *region.inputs, *(o.value for o in region.outputs)]
    w = SketchWriter(name, values)
    nb = len(shape) - 2
    bsyms = [w.symbol(f"B{i}") for i in range(nb)]
    M, N, K = w.symbol("M"), w.symbol("N"), w.symbol("K")
    syms = bsyms + [M, N]
    amap_a = _operand(w, a, shape[:-2], bsyms, [M, K])
    amap_b = _operand(w, b, shape[:-2], bsyms, [K, N])
    amaps = declare_inputs(w, region.inputs, [o.expr for o in region.outputs], shape, syms)
    for o in region.outputs:
        if tuple(o.value.shape) != shape:
            raise ValueError(f"output {o.value.name} {o.value.shape} is not the GEMM result {shape}")
        w.tensor(o.value, syms, "out")
    bm, bn, bk = tile_defaults(shape[-2], shape[-1], a.shape[-1])
    BM, BN, BK = w.param("BM", bm), w.param("BN", bn), w.param("BK", bk)
    GM = w.param("GROUP_M", 8)
    TM, TN = w.fresh("tm_n"), w.fresh("tn_n")
    tiles = f"{cdiv_text(M, BM)} * {cdiv_text(N, BN)}"
    pid = w.fresh("pid")
    w.loop(1, pid, f"{prod_text(bsyms)} * {tiles}" if bsyms else tiles, "parallel")
    w.emit(2, f"{TM} = {cdiv_text(M, BM)}")
    w.emit(2, f"{TN} = {cdiv_text(N, BN)}")
    bt, t = w.fresh("bt"), w.fresh("t")
    w.emit(2, f"{bt} = {pid} // ({TM} * {TN})")
    w.emit(2, f"{t} = {pid} % ({TM} * {TN})")
    # grouped order: GROUP_M row tiles share each column sweep
    width, first, gsz, tm, tn = (w.fresh(s) for s in ("width", "first", "gsz", "tm", "tn"))
    w.emit(2, f"{width} = {GM} * {TN}")
    w.emit(2, f"{first} = {t} // {width} * {GM}")
    w.emit(2, f"{gsz} = min({TM} - {first}, {GM})")
    w.emit(2, f"{tm} = {first} + {t} % {width} % {gsz}")
    w.emit(2, f"{tn} = {t} % {width} // {gsz}")
    bidx = decompose(w, 2, bt, bsyms, [f"b{i}" for i in range(nb)])
    m0, n0 = w.fresh("m0"), w.fresh("n0")
    w.emit(2, f"{m0} = {tm} * {BM}")
    w.emit(2, f"{n0} = {tn} * {BN}")
    f_acc = "f64" if "float64" in (a.dtype, b.dtype) else "f32"
    acc = w.fresh("acc")
    w.emit(2, f'{acc} = alloc([{BM}, {BN}], {f_acc}, hint="accumulator", tier="register", init=0)')
    k0, ta, tb = w.fresh("k0"), w.fresh("ta"), w.fresh("tb")
    w.loop(2, k0, f"0, {K}, {BK}", "pipeline", "core")
    w.emit(3, f"load({_batch_access(a, amap_a, bidx, [f'{m0}:{m0} + {BM}', f'{k0}:{k0} + {BK}'])} -> {ta})")
    w.emit(3, f"load({_batch_access(b, amap_b, bidx, [f'{k0}:{k0} + {BK}', f'{n0}:{n0} + {BN}'])} -> {tb})")
    w.emit(3, f"{acc} = add({acc}, matmul({ta}, {tb}))")
    rm, rn = w.fresh("rm"), w.fresh("rn")
    w.emit(2, f"{rm} = unsqueeze({m0} + iota({BM}), axis=1)")
    w.emit(2, f"{rn} = unsqueeze({n0} + iota({BN}), axis=0)")
    masks = {"m": f"lt({rm}, {M})", "n": f"lt({rn}, {N})"}
    slices = {nb: (f"{m0}:{m0} + {BM}", "m"), nb + 1: (f"{n0}:{n0} + {BN}", "n")}
    by_name = {v.name: v for v in region.inputs}
    loaded: dict[str, tuple[str, Deps]] = {}

    def leaf(e: Expr) -> tuple[str, Deps]:
        if e.op == "acc":
            return acc, frozenset({"m", "n"})
        if e.op != "input" or e.ref not in by_name:
            raise ValueError(f"a GEMM epilogue has no {e.op} leaf {e.ref or ''}")
        if e.ref not in loaded:
            v, amap = by_name[e.ref], amaps[e.ref]
            parts, deps = [], set()
            for d in amap:
                if d is not None and d in slices:
                    parts.append(slices[d][0])
                    deps.add(slices[d][1])
                elif d is None and (len(shape) - len(v.shape) + len(parts)) in slices:
                    parts.append("0:1")  # broadcast along M or N: a size-1 tile axis
                else:
                    parts.append(bidx[d] if d is not None else "0")
            local = w.fresh(f"{v.name}_v")
            w.emit(2, f"load({v.name}[{', '.join(parts)}] -> {local})")
            loaded[e.ref] = (local, frozenset(deps) if deps else NO_DEPS)
        return loaded[e.ref]

    # index leaves of the epilogue (triu/tril of a product): batch scalars, row and column tiles
    pos = [(i, NO_DEPS) for i in bidx] + [(rm, frozenset({"m"})), (rn, frozenset({"n"}))]
    ew = ExprWriter(w, 2, leaf, pos)
    ew.prepare(o.expr for o in region.outputs)
    out_idx = ", ".join(bidx + [f"{m0}:{m0} + {BM}", f"{n0}:{n0} + {BN}"])
    for o in region.outputs:
        text, deps = ew.write(o.expr)
        local = w.fresh(f"{o.value.name}_o")
        w.emit(2, f"{local} = {fit(text, deps, ['m', 'n'], masks)}")
        w.emit(2, f"store({local} -> {o.value.name}[{out_idx}])")
    return w.text()


def _operand(w: SketchWriter, v: Value, batch: tuple[int, ...], bsyms: list[str], last: list[str]) -> list[int | None]:
    """Declare a GEMM operand [..., R, C]; its batch dims broadcast to ``batch``."""
    head = Value(v.name, tuple(v.shape[:-2]), v.dtype)
    amap = align(head, batch)
    w.tensor(v, [bsyms[d] if d is not None else "1" for d in amap] + last, "in")
    return amap


def _batch_access(v: Value, amap: list[int | None], bidx: list[str], tail: list[str]) -> str:
    return f"{v.name}[{', '.join([bidx[d] if d is not None else '0' for d in amap] + tail)}]"
