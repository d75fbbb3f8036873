"""Pooling regions: max or average over the trailing 1-3 dims, epilogue fused.

Programs own a tile of outputs: ``BH x BW`` of the last two pooled dims (``BW`` of the only one
for 1-D pooling) in one plane (an index of every dim before them, scalars split from the program
id once). Every tap's positions are then a row vector plus a column vector, so addressing and
bounds masks cost a few operations per element; a flat block of outputs would pay a division
chain per element and lane (pooling is issue-bound, not bandwidth-bound, that way). The window is
a sequential loop over the kernel taps (kernel sizes are literals of the task), unrolled where the
window is small (``UNROLL_TAPS``).

Where the window along the first pooled dim is at least twice its stride (two or more pooled dims:
each input position there is read by two or more outputs), the window is separable: a program walks ``RD`` outputs along that dim in order and
keeps, in registers, the maxima (sums) of the other dims' taps for the last ``(k - 1) * d + 1``
input positions along it -- a ring shifted by ``stride`` positions an output. Each input position
is then tapped once per program instead of once per output that reads it: ``stride / k`` of the
loads (a 4x4 window at stride 1: four loads an output instead of sixteen). The other dims keep the
tiled form above (the last one or two of them tiled).

A region with a prologue computes each tap's input value from its operands instead of loading a
stored tensor (a convolution's bias and activation). Max pooling reads ``-inf`` outside the input
(padding and windows that ``ceil_mode`` lets hang off the end); average pooling reads 0 and
divides by the window size as torch counts it: with ``count_include_pad`` the window clipped to
the padded input, without it the window clipped to the input; ``divisor_override`` replaces both.
"""

from __future__ import annotations

import math

from akg_rag.lower.emit.common import (
    NO_DEPS, Deps, ExprWriter, SketchWriter, align, cdiv_text, decompose, fit, next_pow2, prod_text,
)
from akg_rag.lower.region import Expr, PoolRegion

# output elements per program (BH * BW at most), from knob sweeps on an H200 (docs/results/
# kernelbench.md, fourteenth and nineteenth sessions): TILE / stride of them (the stride rounded
# up to a power of two), at least TILE_STRIDED. Stride-1 windows ran 1.7x faster at four outputs a thread (512 on 4 warps) than
# at one; stride-11 windows 1.7-2.4x faster at one output a thread (128) than at four; stride-2
# windows 1.1-1.3x faster at two (256) than at one (3-D pooling, [2, 128] and [4, 64] tiles)
TILE = 512
TILE_STRIDED = 128
BW_MAX = 64     # outputs along the last dim per program of a 2-D tile at stride 1 ...
ROW_SPAN = 256  # ... and when strided, outputs enough for a row to span this many input elements
# rolled form, timed on an H100 against the tiled taps (docs/results/kernelbench.md, twenty-first
# session): a 4x4 max window at stride 1 over [32, 64, 512, 512] 3.48 -> 1.80 ms at 8 outputs a
# program (16: 1.99, 32: 1.87); 3x3x3 windows at stride 2 (a reuse of 1.5) gained 4% (average)
# or lost 22% (dilation 3: a 7-position ring), so only windows read by >= 2 outputs a position roll
ROLL_OUTPUTS = 8
ROLL_MIN_REUSE = 2   # kernel / stride along the first pooled dim
ROLL = True          # take the rolled form where it applies
# tap loops of at most this many taps in all are unrolled (`unroll` hint: tl.static_range), so
# each tap's offset is a constant the compiler sees: a tap whose offset keeps 16-byte alignment
# loads vectors (sm_90, level1/44's eight taps: 6 of 22 loads vectorised, none when rolled up).
# On an H100 (docs/results/kernelbench.md, twenty-fourth session) level1/41-46 ran 1-10% faster
# unrolled (3-D 3x3x3 windows at stride 2 most: no vector loads, but 27 independent loads)
UNROLL_TAPS = 32
# windows at stride 1 along the last pooled dim ask for an interior version of their outer loop
# (akg_rag.lower.triton_interior: tiles whose taps all lie inside the input skip the bounds masks
# and load vectors). On an H100 (twenty-fourth session): 1-D windows of level1/44 1.95 -> 1.43 ms
# (the copy rate), level1/41 3.03 -> 2.40, the 2-D 4x4 windows of 42 -4%; 3-D windows at stride 2
# (43, 46: no vector loads either way) and a stride-2 2-D window (level2/35) moved within +-2%
INTERIOR = (("vectorize", "thread"),)


def emit_pool(region: PoolRegion, name: str) -> str:
    """Sketch text of a pooling region (see the module docstring)."""
    r = region
    nd, shape = len(r.kernel), tuple(r.shape)
    lead = len(shape) - nd
    if len(r.x.shape) != len(shape) or nd < 1 or lead < 0:
        raise ValueError(f"pooling of {r.x.shape} to {shape} over {nd} dims does not fit")
    sources = [r.x] if r.prologue is None else list(r.prologue_inputs)
    w = SketchWriter(name, [*sources, *r.inputs, *(o.value for o in r.outputs)])
    lsyms = [w.symbol(f"L{i}") for i in range(lead)]
    sp = "DHW"[3 - nd:] if nd <= 3 else "".join(f"S{i}" for i in range(nd))
    S = [w.symbol(c) for c in sp]
    OS = [w.symbol(f"O{c}") for c in sp]
    osyms = lsyms + OS
    pmaps: dict[str, list[int | None]] = {}
    if r.prologue is None:
        w.tensor(r.x, lsyms + S, "in")
    else:   # the pooled values are computed: the prologue's operands, aligned to x's shape
        if not any(tuple(v.shape) == tuple(r.x.shape) for v in r.prologue_inputs):
            raise ValueError("a pooling prologue needs an operand of the pooled tensor's full shape")
        for v in r.prologue_inputs:
            pmaps[v.name] = align(v, tuple(r.x.shape))
            w.tensor(v, [(lsyms + S)[d] if d is not None else "1" for d in pmaps[v.name]], "in")
    amaps = {}
    for v in r.inputs:
        amaps[v.name] = align(v, shape)
        w.tensor(v, [osyms[d] if d is not None else "1" for d in amaps[v.name]], "in")
    for o in r.outputs:
        if tuple(o.value.shape) != shape:
            raise ValueError(f"output {o.value.name} {o.value.shape} is not the pooling result {shape}")
        w.tensor(o.value, osyms, "out")
    rolled = ROLL and nd >= 2 and r.kernel[0] >= ROLL_MIN_REUSE * r.stride[0]
    tdims = min(nd - (1 if rolled else 0), 2)  # the tiled dims: the last one or two pooled dims
    plane = osyms[:len(osyms) - tdims]
    bh, bw = tile_extents(shape, r.stride[nd - tdims:], tdims)
    blocks = []
    if tdims == 2:
        BH = w.param("BH", bh)
        blocks.append((OS[-2], BH, "h"))
    BW = w.param("BW", bw)
    blocks.append((OS[-1], BW, "w"))
    if rolled:   # the rolled dim's outputs come RD at a time: its plane count is in blocks
        RD = w.param("RD", ROLL_OUTPUTS)
        plane = [*plane[:lead], cdiv_text(OS[0], RD), *plane[lead + 1:]]
    counts = [cdiv_text(ext, b) for ext, b, _ in blocks]
    pid = w.fresh("pid")
    w.loop(1, pid, prod_text([*plane, *counts]), "parallel")
    # the program id split into the plane's indices and the tile's block indices (scalars)
    names = [f"l{i}" for i in range(lead)] + [f"o{i}" for i in range(nd - tdims)] + [f"b{a}" for *_, a in blocks]
    split = decompose(w, 2, pid, [*plane, *counts], names)
    idx = split[:len(plane)]
    masks: dict[str, str] = {}
    pos_deps: list[tuple[str, Deps]] = [(i, NO_DEPS) for i in idx]
    for o, axis, mask in tile_lanes(w, blocks, split[len(plane):], tdims):
        idx.append(o)
        masks[axis] = mask
        pos_deps.append((o, frozenset({axis})))
    tile = [b for _, b, _ in blocks]
    if rolled:
        idx[lead] = w.fresh("od0")
        w.emit(2, f"{idx[lead]} = {split[lead]} * {RD}")
        _rolled(w, r, idx, tile, pos_deps, S, pmaps, amaps, masks, RD)
        return w.text()
    is_max = r.op == "max"
    f_acc = "f64" if r.x.dtype == "float64" else "f32"
    acc = w.fresh("acc")
    w.emit(2, f'{acc} = alloc([{", ".join(tile)}], {f_acc}, hint="accumulator", init={"-inf" if is_max else 0})')
    taps = [w.fresh(f"k{i}") for i in range(nd)]
    dil = r.dilation if is_max else (1,) * nd
    unroll = tap_unroll(r.kernel)
    interior = window_interior(r.stride)
    for i, k in enumerate(taps):   # the window: an interior version without bounds masks
        w.loop(2 + i, k, str(r.kernel[i]), *unroll, more=interior if i == 0 else ())
    depth = 2 + nd
    pos = []
    for i in range(nd):
        p = w.fresh(f"p{i}")
        w.emit(depth, f"{p} = {idx[lead + i]} * {r.stride[i]} - {r.padding[i]} + {taps[i]} * {dil[i]}")
        pos.append(p)
    xv = _tap(w, r, depth, idx[:lead] + pos, pos_deps, S, pmaps)
    w.emit(depth, f"{acc} = {'max' if is_max else 'add'}({acc}, {xv})")
    result = acc
    if not is_max:
        result = w.fresh("avg")
        w.emit(2, f"{result} = div({acc}, {_divisor(w, r, idx[lead:], S, 2)})")
    _epilogue(w, r, result, idx, pos_deps, amaps, masks, 2)
    return w.text()


def tile_extents(shape: tuple[int, ...], strides, tdims: int) -> tuple[int, int]:
    """``(BH, BW)`` defaults of a tile over the last ``tdims`` (1 or 2) dims of an output of
    ``shape`` whose windows move by ``strides`` along them (``BH`` 1 for one dim): rows of
    ``BW_MAX`` outputs (strided: enough to span ``ROW_SPAN`` inputs), or longer rows when there
    are fewer rows than that leaves room for (H = 1); ``TILE`` outputs in all, fewer when strided."""
    stride = next_pow2(max(strides))   # powers of two keep the tile a power of two
    n_out = max(TILE_STRIDED, TILE // stride)
    row = BW_MAX if stride == 1 else min(n_out, max(BW_MAX, ROW_SPAN // stride))
    wide = n_out if tdims == 1 else max(row, n_out // next_pow2(shape[-2]))
    bw = min(next_pow2(shape[-1]), wide)
    bh = min(next_pow2(shape[-2]), max(1, n_out // bw)) if tdims == 2 else 1
    return bh, bw


def tile_lanes(w: SketchWriter, blocks: list[tuple[str, str, str]], blks: list[str],
               tdims: int) -> list[tuple[str, str, str]]:
    """The index tiles of a program's output tile: for each ``(extent, block, axis)`` of
    ``blocks`` and its block index in ``blks``, the lanes ``blk * block + iota(block)`` (a
    column along ``h`` and a row along ``w`` when two dims are tiled), its axis and its mask."""
    out = []
    for (ext, b, axis), blk in zip(blocks, blks):
        o = w.fresh(f"o{axis}")
        lanes = f"{blk} * {b} + iota({b})"
        if tdims == 2:
            lanes = f"unsqueeze({lanes}, axis={0 if axis == 'w' else 1})"
        w.emit(2, f"{o} = {lanes}")
        out.append((o, axis, f"lt({o}, {ext})"))
    return out


def tap_unroll(kernel) -> tuple[str, ...]:
    """The loop hint of a window's tap loops: unrolled where the window has at most
    ``UNROLL_TAPS`` taps (see there)."""
    return ("unroll", "core") if math.prod(kernel) <= UNROLL_TAPS else ()


def window_interior(stride) -> tuple[tuple[str, str], ...]:
    """The window loop's extra hints: an interior version where taps along the last windowed dim
    are at stride 1 (see ``INTERIOR``)."""
    return INTERIOR if stride[-1] == 1 else ()


def _tap(w: SketchWriter, r: PoolRegion, depth: int, at: list[str], pos_deps: list[tuple[str, Deps]],
         S: list[str], pmaps: dict[str, list[int | None]]) -> str:
    """A local holding the pooled tensor at input position ``at`` (one index per dim of x): loaded,
    or computed by the prologue; the pooling's neutral value outside the input."""
    is_max = r.op == "max"
    xv = w.fresh("xv")
    if r.prologue is None:
        other = ", other=-inf" if is_max else ""
        w.emit(depth, f"load({r.x.name}[{', '.join(at)}] -> {xv}{other})")
    else:
        _prologue(w, r, depth, [(p, d) for p, (_, d) in zip(at, pos_deps)], S, pmaps, xv, "-inf" if is_max else "0.0")
    return xv


def _rolled(w: SketchWriter, r: PoolRegion, idx: list[str], tile: list[str], pos_deps: list[tuple[str, Deps]],
            S: list[str], pmaps: dict[str, list[int | None]], amaps: dict, masks: dict[str, str], RD: str) -> None:
    """The rolled form (module docstring): ``idx[lead]`` is the program's first output along the
    rolled dim; a ring ``ring[j]`` holds the taps of the other dims combined at input position
    ``od * s - p + j`` of the rolled dim, for the output ``od`` about to be written."""
    nd = len(r.kernel)
    lead = len(idx) - nd
    is_max = r.op == "max"
    f_acc = "f64" if r.x.dtype == "float64" else "f32"
    neutral, comb = ("-inf", "max") if is_max else ("0", "add")
    k, s, p = r.kernel[0], r.stride[0], r.padding[0]
    d = r.dilation[0] if is_max else 1
    span = (k - 1) * d + 1
    od0 = idx[lead]
    ring = [w.fresh(f"ring{j}") for j in range(span)]
    for name in ring:
        w.emit(2, f'{name} = alloc([{", ".join(tile)}], {f_acc}, hint="accumulator", init={neutral})')
    taps = [w.fresh(f"k{i}") for i in range(1, nd)]
    dil = r.dilation if is_max else (1,) * nd

    def push(depth: int, pos0: str) -> None:
        """Combine the other dims' taps at rolled position ``pos0``; shift it into the ring."""
        hm = w.fresh("hm")
        w.emit(depth, f'{hm} = alloc([{", ".join(tile)}], {f_acc}, hint="accumulator", init={neutral})')
        for i, t in enumerate(taps):
            w.loop(depth + i, t, str(r.kernel[i + 1]), *tap_unroll(r.kernel[1:]))
        inner = depth + len(taps)
        pos = [pos0]
        for i, t in enumerate(taps, start=1):
            q = w.fresh(f"p{i}")
            w.emit(inner, f"{q} = {idx[lead + i]} * {r.stride[i]} - {r.padding[i]} + {t} * {dil[i]}")
            pos.append(q)
        xv = _tap(w, r, inner, idx[:lead] + pos, pos_deps, S, pmaps)
        w.emit(inner, f"{hm} = {comb}({hm}, {xv})")
        for a, b in zip(ring, ring[1:]):
            w.emit(depth, f"{a} = {b}")
        w.emit(depth, f"{ring[-1]} = {hm}")

    # each step pushes the ``s`` positions output ``od`` does not share with ``od - 1``; the
    # first ``warm`` steps only fill the ring (their outputs belong to the previous program: the
    # store goes to index -1, masked). One loop, so no load reads a row a second time.
    pre = span - s
    warm = -(-pre // s)
    j, od, at = w.fresh("j"), w.fresh("od"), w.fresh("at")
    w.loop(2, j, f"{RD} + {warm}", more=window_interior(r.stride))
    w.emit(3, f"{od} = {od0} + {j} - {warm}")
    pos0 = w.fresh("pr")
    if s == 1:
        w.emit(3, f"{pos0} = {od} - {p} + {pre}")
        push(3, pos0)
    else:
        u = w.fresh("u")
        w.loop(3, u, str(s))
        w.emit(4, f"{pos0} = {od} * {s} - {p} + {pre} + {u}")
        push(4, pos0)
    w.emit(3, f"{at} = where(lt({j}, {warm}), -1, {od})")
    result = w.fresh("win")
    w.emit(3, f"{result} = {ring[0]}")
    for t in range(1, k):
        w.emit(3, f"{result} = {comb}({result}, {ring[t * d]})")
    if not is_max:
        avg = w.fresh("avg")
        w.emit(3, f"{avg} = div({result}, {_divisor(w, r, [od, *idx[lead + 1:]], S, 3)})")
        result = avg
    _epilogue(w, r, result, [*idx[:lead], at, *idx[lead + 1:]], pos_deps, amaps, masks, 3)


def _prologue(w: SketchWriter, r: PoolRegion, depth: int, at_deps: list[tuple[str, Deps]], S: list[str],
              pmaps: dict[str, list[int | None]], xv: str, pad: str) -> None:
    """``xv`` = the prologue at input position ``at`` (one index per dim of x), ``pad`` where the
    window hangs outside the input (padding, ceil mode): the operands' loads read 0 there and the
    value is replaced, as a stored input would read ``pad``. ``at_deps`` pairs each index with
    its tile axes."""
    at = [a for a, _ in at_deps]
    by_name = {v.name: v for v in r.prologue_inputs}
    loaded: dict[str, tuple[str, Deps]] = {}

    def leaf(e: Expr) -> tuple[str, Deps]:
        if e.op != "input" or e.ref not in by_name:
            raise ValueError(f"a pooling prologue has no {e.op} leaf {e.ref or ''}")
        if e.ref not in loaded:
            local = w.fresh(f"{e.ref}_v")
            parts = [at[d] if d is not None else "0" for d in pmaps[e.ref]]
            w.emit(depth, f"load({e.ref}[{', '.join(parts or ['0'])}] -> {local})")
            deps = frozenset().union(*(at_deps[d][1] for d in pmaps[e.ref] if d is not None))
            loaded[e.ref] = (local, deps)
        return loaded[e.ref]

    ew = ExprWriter(w, depth, leaf, pos=list(at_deps))
    ew.prepare([r.prologue])  # type: ignore[list-item]
    text, _ = ew.write(r.prologue)  # type: ignore[arg-type]
    lead = len(at) - len(S)
    inside = None
    for p, size in zip(at[lead:], S):
        cond = f"logical_and(ge({p}, 0), lt({p}, {size}))"
        inside = cond if inside is None else f"logical_and({inside}, {cond})"
    w.emit(depth, f"{xv} = where({inside}, {text}, {pad})")


def _divisor(w: SketchWriter, r: PoolRegion, outs: list[str], S: list[str], depth: int) -> str:
    """The element count torch divides a window's sum by (see the module docstring)."""
    if r.divisor_override:
        return f"{float(r.divisor_override)!r}"
    sizes = []
    for i, o in enumerate(outs):
        k, s, p = r.kernel[i], r.stride[i], r.padding[i]
        lo, hi = w.fresh(f"lo{i}"), w.fresh(f"hi{i}")
        w.emit(depth, f"{lo} = {o} * {s} - {p}")
        w.emit(depth, f"{hi} = min({lo} + {k}, {S[i]} + {p})")
        if r.count_include_pad:
            sizes.append(f"sub({hi}, {lo})")
        else:
            sizes.append(f"sub(min({hi}, {S[i]}), max({lo}, 0))")
    count = sizes[0]
    for s in sizes[1:]:
        count = f"mul({count}, {s})"
    return f"cast({count}, f32)"


def _epilogue(w: SketchWriter, r: PoolRegion, result: str, idx: list[str], pos_deps: list[tuple[str, Deps]],
              amaps: dict, masks: dict[str, str], depth: int) -> None:
    by_name = {v.name: v for v in r.inputs}
    loaded: dict[str, tuple[str, Deps]] = {}
    axes = list(masks)

    def leaf(e: Expr) -> tuple[str, Deps]:
        if e.op == "acc":
            return result, frozenset(axes)
        if e.op != "input" or e.ref not in by_name:
            raise ValueError(f"a pooling epilogue has no {e.op} leaf {e.ref or ''}")
        if e.ref not in loaded:
            v, amap = by_name[e.ref], amaps[e.ref]
            local = w.fresh(f"{v.name}_v")
            w.emit(depth, f"load({v.name}[{', '.join([idx[d] if d is not None else '0' for d in amap] or ['0'])}] -> {local})")
            loaded[e.ref] = (local, frozenset().union(*(pos_deps[d][1] for d in amap if d is not None)))
        return loaded[e.ref]

    ew = ExprWriter(w, depth, leaf, pos=[(i, d) for i, (_, d) in zip(idx, pos_deps)])
    ew.prepare(o.expr for o in r.outputs)
    for o in r.outputs:
        text, deps = ew.write(o.expr)
        local = w.fresh(f"{o.value.name}_o")
        w.emit(depth, f"{local} = {fit(text, deps, axes, masks)}")
        w.emit(depth, f"store({local} -> {o.value.name}[{', '.join(idx)}])")
