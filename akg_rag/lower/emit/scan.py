"""Scan regions: inclusive prefix sum / prod / max / min along any dim, reversible, with the
prologue (the scanned expression) and the epilogue (``acc`` leaf) fused.

Programs own ``KBLOCK`` rows (the flattened other dims) and work on ``[KBLOCK, L]`` tiles, the
scanned dim on axis 1 (gathered, so it need not be the last or contiguous dim):

* one tile (row length <= ``TILE_MAX``): ``scan_*`` over the whole row at once;
* blocked: a sequential loop over ``RBLOCK`` blocks of the row, each scanned and offset by the
  running total carried from the blocks before it.

A reverse scan (``flip(cumsum(flip(x)))``) is ``scan_*(..., reverse=1)`` on tiles loaded in
ascending order, the blocked form taking its blocks from the end of the row: every load and store
stays contiguous (a tile at descending addresses is read one element per instruction). ``min`` is
``-scan_max(-x)`` (the sketch has no ``scan_min``).
"""

from __future__ import annotations

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, cdiv_text, decompose, declare_inputs, expr_dtype, fit,
    next_pow2, prod_text,
)
from akg_rag.lower.emit.reduction import INT_IDENTITY
from akg_rag.lower.region import Expr, ScanRegion

TILE_MAX = 4096     # row elements scanned as one tile
LOOP_RBLOCK = 1024  # row elements per block in the blocked form

IDENTITY = {"sum": "0", "prod": "1", "max": "-inf", "min": "inf"}
COMBINE = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


def _scan(op: str, v: str, reverse: bool, integer: bool = False) -> str:
    tail = ", reverse=1" if reverse else ""
    if op == "min":
        # integers through ~x = -x - 1 (order-reversing, no overflow at the type's minimum)
        flip = "bitwise_not" if integer else "neg"
        return f"{flip}(scan_max({flip}({v}), axis=1{tail}))"
    return f"scan_{op}({v}, axis=1{tail})"


def emit_scan(region: ScanRegion, name: str) -> str:
    """Sketch text of a scan region (see the module docstring)."""
    r = region
    shape, n = tuple(r.shape), len(r.shape)
    dim = r.dim % n
    kept = [d for d in range(n) if d != dim]
    w = SketchWriter(name, [*r.inputs, *(o.value for o in r.outputs)])
    syms = [w.symbol(f"D{i}") for i in range(n)]
    amaps = declare_inputs(w, r.inputs, [r.expr, *(o.expr for o in r.outputs)], shape, syms)
    for o in r.outputs:
        if tuple(o.value.shape) != shape:
            raise ValueError(f"output {o.value.name} {o.value.shape} is not the scan domain {shape}")
        w.tensor(o.value, syms, "out")
    KN, L = prod_text(syms[d] for d in kept), syms[dim]
    length = shape[dim]
    rows = 1
    for d in kept:
        rows *= shape[d]
    one_tile = length <= TILE_MAX
    kb = min(next_pow2(rows), max(1, 2048 // next_pow2(length)), 64) if one_tile else 1
    KB = w.param("KBLOCK", kb) if kept else "1"
    pid, kk = w.fresh("pid"), w.fresh("kk")
    w.loop(1, pid, cdiv_text(KN, KB), "parallel")
    w.emit(2, f"{kk} = unsqueeze({pid} * {KB} + iota({KB}), axis=1)")
    kidx = decompose(w, 2, kk, [syms[d] for d in kept], [f"k{d}" for d in kept])
    kmask = f"lt({kk}, {KN})"
    dtypes = {v.name: v.dtype for v in r.inputs}
    f_acc = "f64" if "float64" in dtypes.values() else "f32"
    # integers scan in int64 (a max/min too: its padded lanes hold the type's bounds, where a float
    # infinity would make it a float scan)
    acc_dt = "i64" if expr_dtype(r.expr, dtypes) != "float" else f_acc
    if one_tile:
        _block(w, r, 2, f"iota({L})", f"lt(POS, {L})", kidx, kept, dim, amaps, kmask, None, acc_dt)
    else:
        RB = w.param("RBLOCK", LOOP_RBLOCK)
        carry = w.fresh("carry")
        # a float sum or product carries the running total between blocks in f64 (only the
        # [KBLOCK, 1] total: the block's values stay f32): the torch CPU reference accumulates a
        # whole row in double, and an f32 carry adds a rounding of the row's partial sum per block
        carry_dt = "f64" if acc_dt == "f32" and r.op in ("sum", "prod") else acc_dt
        w.emit(2, f'{carry} = alloc([{KB}, 1], {carry_dt}, hint="accumulator", init={_neutral(r.op, acc_dt)})')
        r0 = w.fresh("r0")
        w.loop(2, r0, f"0, {L}, {RB}", "pipeline", "core")
        if r.reverse:  # block r0 of the scan order: positions [L - r0 - RB, L - r0), ascending
            lanes, valid = f"{L} - {r0} - {RB} + iota({RB})", "ge(POS, 0)"
        else:
            lanes, valid = f"{r0} + iota({RB})", f"lt(POS, {L})"
        _block(w, r, 3, lanes, valid, kidx, kept, dim, amaps, kmask, carry, acc_dt)
    return w.text()


def _neutral(op: str, acc_dt: str) -> str:
    return (INT_IDENTITY if acc_dt == "i64" else IDENTITY)[op]


def _block(w: SketchWriter, r: ScanRegion, depth: int, lanes: str, valid: str, kidx: list[str],
           kept: list[int], dim: int, amaps: dict, kmask: str, carry: str | None, acc_dt: str) -> None:
    """Scan one block of lanes (``lanes``: its positions along the scanned dim, ascending;
    ``valid``: the test of a position ``POS`` inside the row) and store it."""
    pos = w.fresh("pos")
    w.emit(depth, f"{pos} = unsqueeze({lanes}, axis=0)")
    idx: list[str] = [""] * len(r.shape)
    for d, i in zip(kept, kidx):
        idx[d] = i
    idx[dim] = pos
    by_name = {v.name: v for v in r.inputs}
    loaded: dict[str, tuple[str, Deps]] = {}
    acc_ref: list[str] = []

    def leaf(e: Expr) -> tuple[str, Deps]:
        if e.op == "acc":
            if not acc_ref:
                raise ValueError("the scanned expression cannot read the scan's own result")
            return acc_ref[0], frozenset({"k", "r"})
        if e.op != "input" or e.ref not in by_name:
            raise ValueError(f"a scan region has no {e.op} leaf {e.ref or ''}")
        if e.ref not in loaded:
            v, amap = by_name[e.ref], amaps[e.ref]
            local = w.fresh(f"{v.name}_v")
            parts = [idx[d] if d is not None else "0" for d in amap]
            w.emit(depth, f"load({v.name}[{', '.join(parts or ['0'])}] -> {local})")
            deps = {"r" if d == dim else "k" for d in amap if d is not None}
            loaded[e.ref] = (local, frozenset(deps) if deps else NO_DEPS)
        return loaded[e.ref]

    at = [(i, frozenset({"r" if d == dim else "k"})) for d, i in enumerate(idx)]
    ew = ExprWriter(w, depth, leaf, at)
    ew.prepare([r.expr, *(o.expr for o in r.outputs)])
    text, _ = ew.write(r.expr)
    rmask = valid.replace("POS", pos)
    m = w.fresh("m")
    # where() both masks the tail and broadcasts to [KBLOCK, lanes]
    if acc_dt == "i64" and r.op in ("max", "min"):
        text = f"cast({text}, i64)"
    w.emit(depth, f"{m} = where(logical_and({kmask}, {rmask}), {text}, {_neutral(r.op, acc_dt)})")
    acc = w.fresh("acc")
    if carry is None:
        w.emit(depth, f"{acc} = {_scan(r.op, m, r.reverse, acc_dt == 'i64')}")
    else:
        # the block's values stay in acc_dt; only the carried total is wider (see emit_scan)
        wide = acc_dt == "f32" and r.op in ("sum", "prod")
        held = f"cast({carry}, {acc_dt})" if wide else carry
        w.emit(depth, f"{acc} = {COMBINE[r.op]}({_scan(r.op, m, r.reverse, acc_dt == 'i64')}, {held})")
        total = {"sum": "reduce_sum", "prod": "reduce_prod", "max": "reduce_max", "min": "reduce_min"}[r.op]
        w.emit(depth, f"{carry} = {COMBINE[r.op]}({carry}, {total}({m}, axis=1, keepdim=1))")
    acc_ref.append(acc)
    masks = {"k": kmask, "r": rmask}
    for o in r.outputs:
        text, deps = ew.write(o.expr)
        local = w.fresh(f"{o.value.name}_o")
        w.emit(depth, f"{local} = {fit(text, deps, ['k', 'r'], masks)}")
        w.emit(depth, f"store({local} -> {o.value.name}[{', '.join(idx)}])")
