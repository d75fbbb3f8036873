"""The search space of a lowered candidate: each kernel's tunables, their legal values, and the
configurations that are legal together.

A generated kernel's tunables (docs/lowering.md, "Sizes and parameters") are its sketch's
UPPER_CASE integer parameters, plus ``NUM_WARPS`` and ``NUM_STAGES`` on Triton (and ``DOT_MODE`` where
a kernel multiplies f32 tiles with ``tl.dot``, ``CACHE_MODE`` and ``GRID_MODE`` where a program reads a row
again in a later pass, ``INTERIOR_MODE`` and ``ALIGN_MODE`` where a kernel has an interior version, ``SPAN_MODE`` where one
of its unrolled tap loops has a span form, ``LOOP_STAGES`` where it has a streaming loop).
What a parameter does is read from the sketch itself, not from its name alone:

* ``((X + P - 1) // P)`` (a grid of ``P``-blocks) or ``range(a, X, P)`` (a loop in ``P`` steps):
  ``P`` *tiles* the extent ``X``;
* ``((X + S * B - 1) // (S * B) * B)`` (the chunk of a split reduction or split-K GEMM): ``S``
  *splits* ``X`` into chunks of whole ``B``-blocks;
* the same with ``B`` a number (the cooperative reduction form's ``COOP``: its chunks are whole
  16-element runs): ``S`` is the *programs* a row of ``X`` is shared among.

Extents are evaluated at the task's sizes. Values (:func:`kernel_knobs`):

| tunable | values |
| --- | --- |
| a tile (``BLOCK``, ``KBLOCK``, ``RBLOCK``, ``BM``, ...) | powers of two from 1 (16 for ``*BLOCK`` except ``KBLOCK``, and for ``BM``/``BN``/``BK``: ``tl.dot`` needs 16) up to the extent rounded up to a power of two, at most 8192 on Triton (256 for ``BM``/``BN``/``BK``) and 65536 in C++ |
| a split count | powers of two from 1 while every chunk keeps at least one block (at most 2048) |
| programs a row (``COOP``) | powers of two whose chunk holds 1024-16384 elements (a longer one spills registers), at most 128 (the host lowers it to the GPU's SM count) |
| ``GROUP_M`` | powers of two 1 .. 16, no more than the row tiles there are; fixed with one column tile |
| ``NUM_WARPS`` | 1, 2, 4, 8, 16 |
| ``NUM_STAGES`` | 1 .. 5; fixed when the kernel has no sequential loop to pipeline |
| ``GRID_MODE`` | 1 (one program per grid point), 2 (as many programs as keep the re-read rows in flight within half the L2, each looping over grid points) |
| ``CACHE_MODE`` | 1 (no cache hints), 2 (a row read again in a later pass kept in L2, the last pass's loads and the streamed stores evict first) |
| ``INTERIOR_MODE`` | 1 (bounds-masked code only), 2 (programs whose indices lie inside the tensors run a version without bounds masks; akg_rag.lower.triton_interior) |
| ``ALIGN_MODE`` | 1 (the compiler knows the accesses' alignment: vector loads where provable), 2 (hidden: one element a thread per access, consecutive threads on consecutive elements; akg_rag.lower.triton_interior) |
| ``SPAN_MODE`` | 1 (each tap of an unrolled window loop its own load), 2 (each group of four lanes loads its input span once as aligned vectors and forms the taps in registers; akg_rag.lower.triton_span) |
| ``LOOP_STAGES`` | 1 (a streaming loop as written: one load a thread in flight), 2-4 (its loads software-pipelined that deep through shared memory; triton_loops.staged) |
| ``PIPE`` | 0 (a cooperative launch as written), 2-4 (programs a multiprocessor, each looping over grid points and arriving for the next before it waits on the one it holds; triton_pipe) |
| ``DOT_MODE`` | 1-4: an f32 ``tl.dot`` with IEEE products (1), three TF32 products of operands split into head and tail (2; never one TF32 product), one of the two chosen by the operands' layout at call time (3, the default), or K-major copies of the operands and then three TF32 products (4) |

This is also the relevance filter: a tile larger than its extent's power of two runs the same
single block with more masked lanes, so such values are never tried, and a tunable with one value
left does not move. The shipped value always stays a point of the space. :func:`violation` then
rejects joint configurations before any verification: a tile of more elements than the backend
holds per program (every local's padded extents multiplied), or a split with empty chunks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from akg_rag.lower.emit.common import next_pow2
from akg_rag.sketch.nodes import BinOp, Call, Expr, For, Name, Neg, Num, Sketch, Stmt, sub_exprs

# Largest tile (elements of one local, padded) a program may hold: Triton keeps tiles in registers
# (64K f32 = 256 KiB per program already spills); C++ tiles are thread-private buffers (4 MiB f32).
TILE_LIMIT = {"triton": 1 << 16, "cpp": 1 << 20}
# Largest value of one tile tunable, per backend (elements along that axis).
TILE_CAP = {"triton": 8192, "cpp": 1 << 16}
# Largest side of a Triton tl.dot operand tile: 256 x 256 f32 already fills the registers of 8 warps.
DOT_CAP = 256
SPLIT_CAP = 2048
# Programs sharing a row (the cooperative form): chunks of this many elements each, at most PROGRAMS_CAP.
PROGRAM_CHUNK = (1024, 16384)
PROGRAMS_CAP = 128
WARPS = (1, 2, 4, 8, 16)
STAGES = (1, 2, 3, 4, 5)
GROUP_M_MAX = 16


@dataclass(frozen=True)
class Knob:
    """One tunable of one kernel of a candidate, with the values the tuner may give it."""

    name: str                   # the candidate's module-level name: "K0_KBLOCK"
    kernel: str                 # "k0"
    param: str                  # "KBLOCK"
    value: int                  # the candidate's value
    values: tuple[int, ...]     # legal values, sorted (value included)
    why: str                    # how the values were chosen


@dataclass
class _Uses:
    tiles: dict[str, int]                       # param -> largest extent it tiles
    splits: dict[str, tuple[int, str]]          # param -> (extent, block param)
    programs: dict[str, int]                    # param -> extent a row of which it shares out
    has_loop: bool                              # a sequential loop (something to pipeline)


def _eval(e: Expr | None, env: Mapping[str, int]) -> int | None:
    """Integer value of a size expression, or None when it holds something unknown."""
    if isinstance(e, Num) and isinstance(e.value, int):
        return e.value
    if isinstance(e, Name):
        return env.get(e.id)
    if isinstance(e, Neg):
        v = _eval(e.operand, env)
        return None if v is None else -v
    if isinstance(e, Call) and e.func in ("min", "max") and len(e.args) == 2:
        a, b = (_eval(x, env) for x in e.args)
        return None if a is None or b is None else (min if e.func == "min" else max)(a, b)
    if isinstance(e, BinOp):
        a, b = _eval(e.left, env), _eval(e.right, env)
        if a is None or b is None:
            return None
        if e.op in ("//", "%") and b == 0:
            return None
        ops = {"+": a + b, "-": a - b, "*": a * b}
        if e.op in ops:
            return ops[e.op]
        return a // b if e.op == "//" else a % b if e.op == "%" else None
    return None


def _cdiv(e: Expr) -> tuple[Expr, Expr] | None:
    """``(X, D)`` of ``(X + D - 1) // D``."""
    if (isinstance(e, BinOp) and e.op == "//" and isinstance(e.left, BinOp) and e.left.op == "-"
            and isinstance(e.left.right, Num) and e.left.right.value == 1
            and isinstance(e.left.left, BinOp) and e.left.left.op == "+" and e.left.left.right == e.right):
        return e.left.left.left, e.right
    return None


def _stmt_exprs(s: Stmt) -> Iterable[Expr]:
    for attr in ("start", "stop", "step", "value", "init", "other"):
        v = getattr(s, attr, None)
        if v is not None and not isinstance(v, (list, str)):
            yield v
    yield from getattr(s, "shape", None) or []
    src = getattr(s, "src", None) or getattr(s, "dst", None)
    for idx in getattr(src, "indices", None) or []:
        yield from ([idx.start, idx.stop] if hasattr(idx, "stop") else [idx])


def uses(sketch: Sketch, env: Mapping[str, int]) -> _Uses:
    """What each tunable does in ``sketch`` (see the module docstring), extents at ``env``."""
    out = _Uses({}, {}, {}, False)

    def note_tile(p: str, x: Expr) -> None:
        v = _eval(x, env)
        if v is not None:
            out.tiles[p] = max(out.tiles.get(p, 0), v)

    def visit(body: list[Stmt]) -> None:
        for s in body:
            if isinstance(s, For):
                if not any(h.kind == "parallel" for h in s.hints):
                    out.has_loop = True
                if isinstance(s.step, Name):
                    note_tile(s.step.id, BinOp("-", s.stop, s.start) if s.start is not None else s.stop)
                visit(s.body)
            for top in _stmt_exprs(s):
                for e in sub_exprs(top):
                    m = _cdiv(e)
                    if m is None:
                        continue
                    x, d = m
                    if isinstance(d, Name):
                        note_tile(d.id, x)
                    elif (isinstance(d, BinOp) and d.op == "*" and isinstance(d.left, Name)
                          and isinstance(d.right, Name)):
                        v = _eval(x, env)
                        if v is not None:
                            out.splits[d.left.id] = (v, d.right.id)
                    elif (isinstance(d, BinOp) and d.op == "*" and isinstance(d.left, Name)
                          and isinstance(d.right, Num)):
                        v = _eval(x, env)
                        if v is not None:
                            out.programs[d.left.id] = v
    visit(sketch.body)
    return out


def _pow2_range(lo: int, hi: int) -> tuple[int, ...]:
    return tuple(1 << k for k in range(max(hi, 1).bit_length()) if lo <= 1 << k <= hi)


def _tile_floor(param: str) -> int:
    """Smallest useful value of a tile tunable (see the module docstring's table)."""
    if param.rstrip("0123456789") in ("BM", "BN", "BK"):
        return 16
    return 16 if "BLOCK" in param and not param.startswith("KBLOCK") else 1


def kernel_knobs(kernel: str, sketch: Sketch, tunables: Mapping[str, int], sizes: Mapping[str, int],
                 dsl: str) -> list[Knob]:
    """The knobs of one kernel; ``tunables`` maps its module-level names (``K0_BM``) to values."""
    prefix = kernel.upper() + "_"
    params = {name[len(prefix):]: (name, value) for name, value in tunables.items() if name.startswith(prefix)}
    env = {**sizes, **{p: v for p, (_, v) in params.items()}}
    u = uses(sketch, env)
    out = []
    for p, (name, value) in params.items():
        values, why = _values(p, value, u, sizes, dsl, params)
        out.append(Knob(name, kernel, p, value, tuple(sorted({*values, value})), why))
    return out


def _values(p: str, value: int, u: _Uses, sizes: Mapping[str, int], dsl: str,
            params: Mapping[str, tuple[str, int]]) -> tuple[Iterable[int], str]:
    if p == "NUM_WARPS":
        return WARPS, "warps per program"
    if p == "NUM_STAGES":
        return (STAGES, "pipelining stages of its loops") if u.has_loop else ((value,), "no loop to pipeline")
    if p == "GRID_MODE":
        return (1, 2), "programs of a launch that reads rows again: one per grid point, or sized to the L2"
    if p == "CACHE_MODE":
        return (1, 2), "L2 hints on rows read again in a later pass: off, on"
    if p == "INTERIOR_MODE":
        return (1, 2), "interior version without bounds masks for programs inside the tensors: off, on"
    if p == "ALIGN_MODE":
        return (1, 2), "accesses' alignment known to the compiler (vectors where provable) or hidden"
    if p == "SPAN_MODE":
        return (1, 2), "window taps loaded one by one, or formed in registers from each lane group's span"
    if p == "LOOP_STAGES":
        return (1, 2, 3, 4), "loads of a streaming loop in flight: as written, or software-pipelined 2-4 deep"
    if p == "PIPE":
        return (0, 2, 3, 4), ("a cooperative launch as written, or 2-4 programs a multiprocessor each arriving for its "
                              "next grid point before the wait on the one it holds")
    if p == "DOT_MODE":
        return (1, 2, 3, 4), ("f32 dot products: IEEE, three TF32 products of split operands, one of them by "
                              "layout, or K-major operand copies and three TF32 products")
    if p in u.splits:
        extent, block = u.splits[p]
        floor = _tile_floor(block)
        hi = max(1, min(SPLIT_CAP, next_pow2(extent) // floor))
        return _pow2_range(1, hi), f"splits {extent} into chunks of whole {block} blocks (>= {floor})"
    if p in u.programs:
        extent = u.programs[p]
        lo, hi = (-(-extent // c) for c in reversed(PROGRAM_CHUNK))
        values = [v for v in _pow2_range(1, PROGRAMS_CAP) if lo <= v <= hi]
        return values, f"programs sharing a row of {extent}: chunks of {PROGRAM_CHUNK[0]}..{PROGRAM_CHUNK[1]}"
    if p.startswith("GROUP_M"):
        if sizes.get("N", 17) <= 16:
            return (value,), "one column tile at any BN: grouping changes nothing"
        rows = sizes.get("M")
        hi = GROUP_M_MAX if rows is None else max(1, min(GROUP_M_MAX, next_pow2(math.ceil(rows / 16))))
        return _pow2_range(1, hi), "row tiles grouped per column sweep"
    if p in u.tiles:
        extent = u.tiles[p]
        floor = _tile_floor(p)
        cap = DOT_CAP if dsl == "triton" and floor == 16 and "BLOCK" not in p else TILE_CAP[dsl]
        hi = min(cap, max(floor, next_pow2(max(extent, 1))))
        return _pow2_range(floor, hi), f"tiles an extent of {extent}: powers of two {floor}..{hi}"
    return (value,), "role unknown: kept"


def tile_elements(sketch: Sketch, env: Mapping[str, int], pad: bool) -> int:
    """Elements of the largest local tile at sizes and tunables ``env`` (each extent padded to a
    power of two when ``pad``); 0 when none can be evaluated."""
    from akg_rag.lower.typed import analyze

    typed = analyze(sketch)
    best = 0
    for d in typed.definitions.values():
        n = 1
        for s in d.target.shape:
            v = _eval(s.expr, env)
            if v is None:
                n = 0
                break
            n *= next_pow2(v) if pad else max(v, 1)
        best = max(best, n)
    return best


def violation(knobs: list[Knob], config: Mapping[str, int], sketches: Mapping[str, Sketch],
              sizes: Mapping[str, Mapping[str, int]], dsl: str) -> str | None:
    """Why ``config`` (module-level name -> value) is not a legal configuration, or None."""
    for kernel, sketch in sketches.items():
        mine = {k.param: config.get(k.name, k.value) for k in knobs if k.kernel == kernel}
        env = {**sizes.get(kernel, {}), **mine}
        u = uses(sketch, env)
        for s, (extent, block) in u.splits.items():
            if s in mine and block in mine and mine[s] > 1 and mine[s] * mine[block] > next_pow2(extent):
                return (f"{kernel}: {s}={mine[s]} x {block}={mine[block]} exceeds the extent {extent}: "
                        "some chunks would be empty")
        elems = tile_elements(sketch, env, pad=dsl == "triton")
        if elems > TILE_LIMIT[dsl]:
            return f"{kernel}: a tile of {elems} elements exceeds {TILE_LIMIT[dsl]} per program"
    return None
