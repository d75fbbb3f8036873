"""GEMM regions: ``acc = a @ b`` (batched, broadcast batch dims) with the epilogue fused.

One program per (batch, ``BM`` x ``BN`` output tile); tiles are ordered in groups of ``GROUP_M``
row tiles so that neighbouring programs share operand tiles in L2. A sequential K loop multiplies
``[BM, BK] x [BK, BN]`` tiles into an f32 accumulator (f64 for f64 data); the epilogue runs on the
accumulator tile, operands broadcast along M or N are loaded as ``[BM, 1]`` / ``[1, BN]`` tiles;
the store is masked by the tensor bounds.

When the output has too few tiles to fill the GPU and K is long (a matvec, a tall-skinny product),
K is split into ``SPLIT_K`` chunks: one launch writes a partial product per chunk into a ``temp``
tensor, a second sums the chunks in a fixed order and runs the epilogue (``split_k``).
"""

from __future__ import annotations

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, align, cdiv_text, decompose, declare_inputs, fit, next_pow2,
    prod_text,
)
from akg_rag.lower.region import Expr, GemmRegion, Value


def tile_defaults(m: int, n: int, k: int, wide: bool = False) -> tuple[int, int, int]:
    """(BM, BN, BK) for the captured sizes: 128 x 128 x 64 for large problems whose K has no tail
    of a 64 block, 128 x 128 x 32 otherwise, smaller for small ones (tl.dot needs >= 16 on every
    side); ``wide`` (8-byte data) keeps BK at 32 beside a 128-wide tile. Measured on the H200
    (fp32, 128 x 128 tiles, eight warps, three stages, Triton's three TF32 products, which the
    default DOT_MODE takes for any large f32 GEMM): BK 64 ran level2/12's GEMM (K 8192) in 1.70 ms
    against 2.05 ms at 32, the batched seed 11% and square 4096 3% faster; IEEE products ran
    between 2% faster and 7% slower. Compiled for sm_90 at 64, a K tail's masks push the split
    products over the register file (level1/8, K 2949: 396 bytes of spill stores, none at 32);
    without a tail 8 bytes spill (level2/12's kernel, the one timed, compiles so). Three stages of 128 x 64 and 64 x 128
    f32 tiles fill 192 KiB of the 227 KiB of shared memory a block may have."""
    bm = min(128, max(16, next_pow2(m)))
    bn = min(128, max(16, next_pow2(n)))
    deep = max(bm, bn) <= 64 or (not wide and k % 64 == 0)
    bk = min(64 if deep else 32, max(16, next_pow2(k)))
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
    bm, bn, bk = tile_defaults(shape[-2], shape[-1], a.shape[-1], wide="float64" in (a.dtype, b.dtype))
    split = split_k(shape, a.shape[-1], bm, bn)
    if split > 1:   # few output tiles over a long K: IEEE products (each B element meets few rows),
        bk = min(bk, 32)   # which ran faster at 32 (and spill at 64 on sm_90)
    BM, BN, BK = w.param("BM", bm), w.param("BN", bn), w.param("BK", bk)
    GM = w.param("GROUP_M", 8)
    tiles = f"{cdiv_text(M, BM)} * {cdiv_text(N, BN)}"
    if bsyms:
        tiles = f"{prod_text(bsyms)} * {tiles}"
    f_acc = "f64" if "float64" in (a.dtype, b.dtype) else "f32"
    if split > 1:
        # split-K: launch 1 writes one partial product per K chunk, launch 2 sums the chunks in a
        # fixed order and runs the epilogue (more programs, and shorter sequential sums)
        SPLIT = w.param("SPLIT_K", split)
        part = Value(w.fresh("part"), (split, *shape), "float64" if f_acc == "f64" else "float32")
        w.tensor(part, [SPLIT] + syms, "temp")
        pid = w.fresh("pid")
        w.loop(1, pid, f"{SPLIT} * {tiles}", "parallel")
        sk, rest = w.fresh("sk"), w.fresh("rest")
        w.emit(2, f"{sk} = {pid} // ({tiles})")
        w.emit(2, f"{rest} = {pid} % ({tiles})")
        bidx, m0, n0 = _tile_origin(w, rest, M, N, BM, BN, GM, bsyms)
        # chunk depth: a multiple of BK (loop bounds take symbols and params only, not locals)
        chunk = f"(({K} + {SPLIT} * {BK} - 1) // ({SPLIT} * {BK}) * {BK})"
        acc = _k_loop(w, a, b, amap_a, amap_b, bidx, m0, n0, BM, BN, BK, f_acc,
                      f"0, {chunk}, {BK}", offset=f"{sk} * {chunk} + ")
        w.emit(2, f"store({acc} -> {part.name}[{', '.join([sk] + bidx + [f'{m0}:{m0} + {BM}', f'{n0}:{n0} + {BN}'])}])")
        w.emit(0, "")
        pid = w.fresh("pid")
        w.loop(1, pid, tiles, "parallel")
        bidx, m0, n0 = _tile_origin(w, pid, M, N, BM, BN, GM, bsyms)
        acc, s_i, pv = w.fresh("acc"), w.fresh("s"), w.fresh("pv")
        w.emit(2, f'{acc} = alloc([{BM}, {BN}], {f_acc}, hint="accumulator", tier="register", init=0)')
        w.loop(2, s_i, SPLIT, "unroll", "core")
        w.emit(3, f"load({part.name}[{', '.join([s_i] + bidx + [f'{m0}:{m0} + {BM}', f'{n0}:{n0} + {BN}'])}] -> {pv})")
        w.emit(3, f"{acc} = add({acc}, {pv})")
    else:
        pid = w.fresh("pid")
        w.loop(1, pid, tiles, "parallel")
        bidx, m0, n0 = _tile_origin(w, pid, M, N, BM, BN, GM, bsyms)
        acc = _k_loop(w, a, b, amap_a, amap_b, bidx, m0, n0, BM, BN, BK, f_acc, f"0, {K}, {BK}")
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
            # a 0-d operand is declared [1] (the grammar has no rank-0 tensors): index it with 0
            w.emit(2, f"load({v.name}[{', '.join(parts) or '0'}] -> {local})")
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


def split_k(shape: tuple[int, ...], k: int, bm: int, bn: int) -> int:
    """How many K chunks to sum separately: 1 unless the output has too few tiles to fill a GPU
    (under 2 waves of 132 programs) and K is long (>= 4096); then enough chunks for 2 waves, each
    at least 1024 deep, a power of two up to 64. Long K also costs accuracy in one sequential f32
    sum (a 2048 x 1M matvec drifts by ~2e-4 relative); chunks shorten that chain."""
    batch = 1
    for d in shape[:-2]:
        batch *= d
    tiles = batch * -(-shape[-2] // bm) * -(-shape[-1] // bn)
    if k < 4096 or tiles >= 264:
        return 1
    split = 1
    while split < 64 and tiles * split < 264 and k // (split * 2) >= 1024:
        split *= 2
    return split


def _tile_origin(w: SketchWriter, pid: str, M: str, N: str, BM: str, BN: str, GM: str,
                 bsyms: list[str]) -> tuple[list[str], str, str]:
    """Batch indices and the first row/column of the output tile of flat program ``pid``, in the
    grouped order (``GROUP_M`` row tiles share each column sweep, so operand tiles stay in L2)."""
    TM, TN = w.fresh("tm_n"), w.fresh("tn_n")
    w.emit(2, f"{TM} = {cdiv_text(M, BM)}")
    w.emit(2, f"{TN} = {cdiv_text(N, BN)}")
    bt, t = w.fresh("bt"), w.fresh("t")
    w.emit(2, f"{bt} = {pid} // ({TM} * {TN})")
    w.emit(2, f"{t} = {pid} % ({TM} * {TN})")
    width, first, gsz, tm, tn = (w.fresh(s) for s in ("width", "first", "gsz", "tm", "tn"))
    w.emit(2, f"{width} = {GM} * {TN}")
    w.emit(2, f"{first} = {t} // {width} * {GM}")
    w.emit(2, f"{gsz} = min({TM} - {first}, {GM})")
    w.emit(2, f"{tm} = {first} + {t} % {width} % {gsz}")
    w.emit(2, f"{tn} = {t} % {width} // {gsz}")
    bidx = decompose(w, 2, bt, bsyms, [f"b{i}" for i in range(len(bsyms))])
    m0, n0 = w.fresh("m0"), w.fresh("n0")
    w.emit(2, f"{m0} = {tm} * {BM}")
    w.emit(2, f"{n0} = {tn} * {BN}")
    return bidx, m0, n0


def _k_loop(w: SketchWriter, a: Value, b: Value, amap_a: list[int | None], amap_b: list[int | None],
            bidx: list[str], m0: str, n0: str, BM: str, BN: str, BK: str, f_acc: str, rng: str,
            offset: str = "") -> str:
    """The accumulator of ``[BM, BK] x [BK, BN]`` tile products over the K range ``rng`` (each
    K index shifted by the ``offset`` text, e.g. a split-K chunk's start)."""
    acc = w.fresh("acc")
    w.emit(2, f'{acc} = alloc([{BM}, {BN}], {f_acc}, hint="accumulator", tier="register", init=0)')
    k0, ta, tb = w.fresh("k0"), w.fresh("ta"), w.fresh("tb")
    w.loop(2, k0, rng, "pipeline", "core")
    k = f"{offset}{k0}"
    w.emit(3, f"load({_batch_access(a, amap_a, bidx, [f'{m0}:{m0} + {BM}', f'{k}:{k} + {BK}'])} -> {ta})")
    w.emit(3, f"load({_batch_access(b, amap_b, bidx, [f'{k}:{k} + {BK}', f'{n0}:{n0} + {BN}'])} -> {tb})")
    w.emit(3, f"{acc} = add({acc}, matmul({ta}, {tb}))")
    return acc


def _operand(w: SketchWriter, v: Value, batch: tuple[int, ...], bsyms: list[str], last: list[str]) -> list[int | None]:
    """Declare a GEMM operand [..., R, C]; its batch dims broadcast to ``batch``."""
    head = Value(v.name, tuple(v.shape[:-2]), v.dtype)
    amap = align(head, batch)
    w.tensor(v, [bsyms[d] if d is not None else "1" for d in amap] + last, "in")
    return amap


def _batch_access(v: Value, amap: list[int | None], bidx: list[str], tail: list[str]) -> str:
    return f"{v.name}[{', '.join([bidx[d] if d is not None else '0' for d in amap] + tail)}]"
