"""Pointwise regions: one launch over the output elements.

Two forms:

* flat (default): programs over blocks of ``BLOCK`` flattened output elements; each element's
  index per dim comes from ``//`` and ``%``; inputs are gathered (broadcast dims indexed by 0);
* rows (when the last dim is long, >= ``ROWS_MIN_LAST`` elements): programs over (row, column
  block); the row's indices are scalars and the last dim a contiguous slice, so no division runs
  per element.

Where a one-dimensional region's length is not a multiple of 16, blocks inside the tensor run an
interior version without the bounds mask (``INTERIOR``), so their loads are vectors.

``index`` leaves read the per-dim index tiles (the row's scalars and the column tile in the rows
form); ``gather`` leaves are gather loads at their index expressions (common.ExprWriter).
"""

from __future__ import annotations

import math

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, access, cdiv_text, decompose, declare_inputs, fit,
    next_pow2, prod_text,
)
from akg_rag.lower.region import Expr, PointwiseRegion

ROWS_MIN_LAST = 256      # elements: from this last-dim length on, the rows form is used
FLAT_BLOCK = 1024        # elements per program in the flat form
ROW_BLOCK_MAX = 2048     # elements per program in the rows form
# Where a one-dimensional region's extent (its elements, after coalescing) is not a multiple of
# 16, Triton cannot prove the `< extent` mask constant across a vector's lanes and loads element
# by element; the program then asks for an interior version (akg_rag.lower.triton_interior): a
# block inside the tensor loads and stores without that mask (sm_90, [4099, 8191] relu-mul-add:
# no load vectorised before, the interior version's all). Extents that are multiples of 16
# vectorise masked; rows of such a length start at addresses Triton cannot prove aligned (a
# stride that is no multiple of 16), so their blocks load element by element either way (sm_90,
# level2/1's [128, 16, 15876] tail: no load vectorised in either version). Both stay one version.
INTERIOR = (("vectorize", "thread"),)
VECTOR_EXTENT = 16


def emit_pointwise(region: PointwiseRegion, name: str) -> str:
    """Sketch text of a pointwise region (see the module docstring)."""
    shape = tuple(region.shape) or (1,)
    w = SketchWriter(name, [*region.inputs, *(o.value for o in region.outputs)])
    syms = [w.symbol(f"D{i}") for i in range(len(region.shape))] or ["1"]
    amaps = declare_inputs(w, region.inputs, [o.expr for o in region.outputs], shape, syms)
    for o in region.outputs:
        if tuple(o.value.shape or (1,)) != shape:
            raise ValueError(f"output {o.value.name} {o.value.shape} is not on the region shape {region.shape}")
        w.tensor(o.value, syms, "out")
    rows = len(region.shape) >= 1 and shape[-1] >= ROWS_MIN_LAST
    if rows:
        idx, masks, need, cols = _rows_prologue(w, shape, syms)
        # the row's indices are scalars; the last dim's positions are the column tile
        pos = [(i, NO_DEPS) for i in idx[:-1]] + [(cols, frozenset({"t"}))]
    else:
        idx, masks, need = _flat_prologue(w, shape, syms)
        pos = [(i, frozenset({"t"})) for i in idx]
    _body(w, region, amaps, idx, masks, need, rows, pos[:len(region.shape)])
    return w.text()


def _interior(shape: tuple[int, ...]) -> tuple[tuple[str, str], ...]:
    """The grid loop's extra hints for a region of ``shape`` (see ``INTERIOR``)."""
    return INTERIOR if math.prod(shape[:-1]) == 1 and shape[-1] % VECTOR_EXTENT else ()


def _flat_prologue(w: SketchWriter, shape: tuple[int, ...], syms: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    block = w.param("BLOCK", FLAT_BLOCK)
    total = prod_text(syms)
    pid = w.fresh("pid")
    w.loop(1, pid, cdiv_text(total, block), "parallel", more=_interior(shape))
    offs = w.fresh("offs")
    w.emit(2, f"{offs} = {pid} * {block} + iota({block})")
    idx = decompose(w, 2, offs, syms, [f"i{d}" for d in range(len(syms))])
    return idx, {"t": f"lt({offs}, {total})"}, ["t"]


def _rows_prologue(w: SketchWriter, shape: tuple[int, ...], syms: list[str]) -> tuple[list[str], dict[str, str], list[str], str]:
    block = w.param("BLOCK", min(ROW_BLOCK_MAX, next_pow2(shape[-1])))
    nb = cdiv_text(syms[-1], block)
    pid = w.fresh("pid")
    w.loop(1, pid, f"{prod_text(syms[:-1])} * {nb}", "parallel", more=_interior(shape))
    row, cb = w.fresh("row"), w.fresh("cb")
    w.emit(2, f"{row} = {pid} // {nb}")
    w.emit(2, f"{cb} = {pid} % {nb}")
    idx = decompose(w, 2, row, syms[:-1], [f"i{d}" for d in range(len(syms) - 1)])
    c0, cols = w.fresh("c0"), w.fresh("cols")
    w.emit(2, f"{c0} = {cb} * {block}")
    w.emit(2, f"{cols} = {c0} + iota({block})")
    idx.append(f"{c0}:{c0} + {block}")
    return idx, {"t": f"lt({cols}, {syms[-1]})"}, ["t"], cols


def _body(w: SketchWriter, region: PointwiseRegion, amaps: dict, idx: list[str], masks: dict[str, str],
          need: list[str], rows: bool, pos: list) -> None:
    loaded: dict[str, tuple[str, Deps]] = {}
    by_name = {v.name: v for v in region.inputs}
    last = len(idx) - 1

    def leaf(e: Expr) -> tuple[str, Deps]:
        if e.op != "input" or e.ref not in by_name:
            raise ValueError(f"a pointwise region has no {e.op} leaf {e.ref or ''}")
        if e.ref not in loaded:
            v = by_name[e.ref]
            local = w.fresh(f"{v.name}_v")
            w.emit(2, f"load({access(v, amaps[v.name], idx)} -> {local})")
            mapped = [d for d in amaps[v.name] if d is not None]
            # flat form: any mapped dim is a gather over the block; rows form: only the last dim
            varies = (last in mapped) if rows else bool(mapped)
            loaded[e.ref] = (local, frozenset({"t"}) if varies else frozenset())
        return loaded[e.ref]

    ew = ExprWriter(w, 2, leaf, pos)
    ew.prepare(o.expr for o in region.outputs)
    for o in region.outputs:
        text, deps = ew.write(o.expr)
        local = w.fresh(f"{o.value.name}_o")
        w.emit(2, f"{local} = {fit(text, deps, need, masks)}")
        w.emit(2, f"store({local} -> {access(o.value, list(range(len(idx))), idx)})")
