"""The Triton backend: a validated sketch becomes a Python module of ``@triton.jit`` kernels.

``emit_triton(sketch, name)`` returns a :class:`~akg_rag.lower.source.KernelSource` whose code
holds, in order: imports; the module-level tunables ``{NAME}_{PARAM}`` (kernel name upper-cased,
as the search's tunable scanner wants; the sketch's UPPER_CASE integer parameters, plus
``{NAME}_NUM_WARPS`` and ``{NAME}_NUM_STAGES``; ``{NAME}_DOT_MODE`` with an f32 dot and
``{NAME}_CACHE_MODE`` and ``{NAME}_GRID_MODE`` where a program reads a row again in a later
pass; ``{NAME}_INTERIOR_MODE`` and ``{NAME}_ALIGN_MODE`` where a kernel has an interior
version), read by the host function at call time so the search can rewrite them; small helper
functions; one kernel per launch (:mod:`akg_rag.lower.triton_kernel`); and the host function
``def {name}(*tensors)`` (:mod:`akg_rag.lower.triton_host`). Nothing runs on import.

What the kernels guarantee (docs/lowering.md): tiles are power-of-two blocks with a validity mask
on every padded axis; reductions, scans, ``matmul`` and stores ignore padded lanes; loads mask
indices outside the tensor and read ``other``; 16-bit floats compute in f32 and stores cast to the
tensor's dtype; f32 ``matmul`` runs ``tl.dot`` with IEEE products or, by the ``DOT_MODE`` tunable,
three TF32 products of operands split into head and tail, never a single TF32 product.
"""

from __future__ import annotations

import math

from akg_rag.errors import SketchError
from akg_rag.lower.source import KernelSource
from akg_rag.lower.triton_barrier import RESIDENT_HELPER, barriers
from akg_rag.lower.triton_expr import join16
from akg_rag.lower.triton_names import Blocks, Namer
from akg_rag.lower.triton_host import CHECK_HELPER, K_MAJOR_HELPER, L2_GRID_HELPER, host_source
from akg_rag.lower.triton_interior import DEFAULT_ALIGN_MODE
from akg_rag.lower.triton_pipe import pipe_default
from akg_rag.lower.triton_span import DEFAULT_SPAN_MODE, FLAT_SPAN_MODE
from akg_rag.lower.triton_kernel import KernelWriter
from akg_rag.lower.triton_ops import helper_sources, helpers_needing_libdevice
from akg_rag.lower.typed import TypedSketch, analyze
from akg_rag.sketch.nodes import Alloc, Assign, For, Load, Sketch, Stmt
from akg_rag.sketch.validate import validate_sketch

DEFAULT_NUM_WARPS = 4    # warps per program (Triton's default)
DOT_WARPS = 8            # ... for an f32 (IEEE, FMA) dot over a tile of DOT_WIDE_TILE elements or more
DOT_WIDE_TILE = 64 * 32
# ... and for any accumulator tile this large: a reduction over a middle dim, lanes of [128, 64]
# over the kept (contiguous) and reduced dims, ran 2.01 ms on 8 warps and 2.35 on 4 (H200,
# KernelBench level1/49, docs/results/h200/reduction-sweeps-run14.jsonl)
WIDE_ACCUMULATOR = 128 * 64
# ... and a long row's lanes ([1, R], R this large): sixteen warps keep enough loads in flight for
# one row per program (L1 norm of [32768, 65535] rows: 9.8 ms on 8 warps, 9.4 on 16; softmax of
# [4096, 393216]: 7.0 and 6.7; H100, docs/results/h100/long-rows-run17.jsonl)
LONG_ROW_LANES = 8192
LONG_ROW_WARPS = 16
# ... and eight for a row of ROW_LANES lanes or more (four lanes, one 16-byte f32 vector, a thread):
# timed on an H200 at KernelBench sizes, [1, 1024] lanes ran faster on 8 warps than on 4 in the
# split form (GroupNorm 7.28 -> 6.19 ms, LayerNorm 0.408 -> 0.302, docs/results/h200/
# row-warps-run19.jsonl) as in the loop form (Frobenius norm, L1 norm, matrix-vector, run 5)
ROW_LANES = 1024
DEFAULT_NUM_STAGES = 3   # software-pipelining stages of loops that load (Triton's CUDA default)
DEFAULT_DOT_MODE = 3     # f32 dots: 1 IEEE, 2 three TF32 products of split operands, 3 by layout, 4 K-major copies
DEFAULT_CACHE_MODE = 2   # a row read again in a later pass: 1 no cache hints, 2 L2 hints (akg_rag.lower.reuse)
DEFAULT_GRID_MODE = 1    # ... and its launch: 1 one program per grid point, 2 a grid sized to the L2 (_l2_grid)
# Loads in flight of a streaming loop (triton_loops.staged): 1 compiles as a plain `range`.
DEFAULT_LOOP_STAGES = 1
DEFAULT_INTERIOR_MODE = 2   # a `vectorize` loop or program: 1 the masked version only, 2 also the interior one


def emit_triton(sketch: Sketch, name: str) -> KernelSource:
    """Triton source for a sketch; raise ``SketchError`` (with a position) if it cannot lower."""
    if not name.isidentifier():
        raise ValueError(f"kernel name {name!r} is not a Python identifier")
    validate_sketch(sketch)
    typed = analyze(sketch)
    namer = Namer(_identifiers(typed) | {name})
    blocks = Blocks(typed, namer)
    helpers: set[str] = set()
    kernels: list[tuple[str, KernelWriter]] = []
    sources: list[str] = []
    for launch in typed.launches:
        kname = namer.fresh(f"{name}_kernel" if len(typed.launches) == 1 else f"{name}_kernel{launch.index}")
        kw = KernelWriter(typed, launch, blocks, namer, helpers, kname)
        sources.append(kw.source())
        kernels.append((kname, kw))
    # upper-cased like the C++ backend's constants, so the search's tunable scanner finds them
    prefix = name.upper()
    tunables = {p: f"{prefix}_{p}" for p in typed.tunables}
    tunables["NUM_WARPS"] = f"{prefix}_NUM_WARPS"
    tunables["NUM_STAGES"] = f"{prefix}_NUM_STAGES"
    if any(kw.dot_x3 for _, kw in kernels):
        tunables["DOT_MODE"] = f"{prefix}_DOT_MODE"
    if any(kw.reread for _, kw in kernels):   # a row read again: L2 hints and an L2-sized grid
        tunables["CACHE_MODE"] = f"{prefix}_CACHE_MODE"
        tunables["GRID_MODE"] = f"{prefix}_GRID_MODE"
    if any(kw.versioned for _, kw in kernels):   # interior versions (akg_rag.lower.triton_interior)
        tunables["INTERIOR_MODE"] = f"{prefix}_INTERIOR_MODE"
        tunables["ALIGN_MODE"] = f"{prefix}_ALIGN_MODE"
    if any(kw.span_used for _, kw in kernels):   # span forms of tap loops (akg_rag.lower.triton_span)
        tunables["SPAN_MODE"] = f"{prefix}_SPAN_MODE"
    if any(kw.loop_staged for _, kw in kernels):   # software-pipelined streaming loops (triton_loops.staged)
        tunables["LOOP_STAGES"] = f"{prefix}_LOOP_STAGES"
    if any(kw.piped for _, kw in kernels):   # cooperative launches' pipelined form (triton_pipe)
        tunables["PIPE"] = f"{prefix}_PIPE"
    host = host_source(typed, name, kernels, blocks, tunables)
    values = {**{tunables[p]: v for p, v in typed.tunables.items()},
              tunables["NUM_WARPS"]: default_warps(typed, any(kw.dot_gathers for _, kw in kernels)),
              tunables["NUM_STAGES"]: DEFAULT_NUM_STAGES}
    if "DOT_MODE" in tunables:
        values[tunables["DOT_MODE"]] = DEFAULT_DOT_MODE
    if "CACHE_MODE" in tunables:
        values[tunables["CACHE_MODE"]] = DEFAULT_CACHE_MODE
    if "GRID_MODE" in tunables:
        values[tunables["GRID_MODE"]] = DEFAULT_GRID_MODE
    if "INTERIOR_MODE" in tunables:
        values[tunables["INTERIOR_MODE"]] = DEFAULT_INTERIOR_MODE
        values[tunables["ALIGN_MODE"]] = DEFAULT_ALIGN_MODE
    if "SPAN_MODE" in tunables:
        flat = all(kw.span_flat for _, kw in kernels if kw.span_used)   # 1-D windows only
        values[tunables["SPAN_MODE"]] = FLAT_SPAN_MODE if flat else DEFAULT_SPAN_MODE
    if "LOOP_STAGES" in tunables:
        values[tunables["LOOP_STAGES"]] = DEFAULT_LOOP_STAGES
    if "PIPE" in tunables:
        values[tunables["PIPE"]] = pipe_default([kw for _, kw in kernels])
    code = _module(typed, name, values, helpers, sources, host, k_major="DOT_MODE" in tunables,
                   l2_grid="GRID_MODE" in tunables, resident=any(kw.barriers for _, kw in kernels))
    return KernelSource(code=code, entry=name, tunables=values, tensors=[t.name for t in typed.arguments])


def default_warps(typed: TypedSketch, gathers: bool = False) -> int:
    """Warps per program before any tuning. An f32 dot with IEEE products runs on the FMA units and
    keeps its whole [BM, BN] accumulator in registers: a 128 x 128 GEMM tile over four warps is 128
    values a thread, and compiled for sm_90 the kernel spills (255 registers, 80 bytes of spill
    stores); eight warps hold 64 each without spilling. A dot whose operand is gathered through
    computed addresses (a convolution's patch tile, ``gathers``) keeps four: timed on an H200 at
    KernelBench's conv shapes, 64-pixel tiles ran 1.1-2.0x faster on four warps than on eight
    (docs/results/h200/conv-sweeps-run13.jsonl), though ptxas reports small spills on four. A
    kernel without a dot whose accumulator tile holds WIDE_ACCUMULATOR elements or more (a
    reduction's lane-wise [KBLOCK, RBLOCK] partials) takes eight, as does one row of ROW_LANES
    lanes or more, sixteen when the row has LONG_ROW_LANES or more. A launch with barriers (a
    reduction's cooperative form: a 4096- to 16384-element chunk a program) takes eight: the
    hand-written form ran fastest on eight warps on an H100, sixteen were slower
    (docs/results/h100/coop-ticket-run21.jsonl). Other kernels keep four."""
    if gathers:
        return DEFAULT_NUM_WARPS
    if any(barriers(launch.body) for launch in typed.launches):
        return DOT_WARPS
    if not typed.matmuls:  # a dot's accumulator is the dot's own rule below (tensor cores or FMA)
        elements, row = _accumulator_elements(typed)
        if row >= LONG_ROW_LANES:
            return LONG_ROW_WARPS
        if elements >= WIDE_ACCUMULATOR or row >= ROW_LANES:
            return DOT_WARPS
    for mm in typed.matmuls:
        a, b = (typed.type_of(x) for x in mm.args)  # type: ignore[union-attr]
        if typed.type_of(mm).dtype != "f32" or join16(a.exact, b.exact) is not None or a.rank < 2:
            continue
        m, n = (_default_extent(typed, s) for s in (a.shape[-2], b.shape[-1]))
        if m and n and m * n >= DOT_WIDE_TILE:
            return DOT_WARPS
    return DEFAULT_NUM_WARPS


def _accumulator_elements(typed: TypedSketch) -> tuple[int, int]:
    """Elements of the largest accumulator ``alloc`` at the tunables' defaults, and of the largest
    one that is a single row (every extent but the last 1); 0 when none has extents known before
    run time."""
    from akg_rag.lower.tune_space import _eval

    best = row = 0
    stack: list[Stmt] = list(typed.sketch.body)
    while stack:
        st = stack.pop()
        if isinstance(st, For):
            stack.extend(st.body)
        elif isinstance(st, Alloc) and st.role == "accumulator":
            extents = [_eval(e, typed.tunables) for e in st.shape]
            n = 0 if None in extents else math.prod(extents)
            best = max(best, n)
            if n and all(v == 1 for v in extents[:-1]):
                row = max(row, n)
    return best, row


def _default_extent(typed: TypedSketch, size) -> int | None:
    """A tile extent at the tunables' defaults (None when it depends on a run-time size)."""
    if size.value is not None:
        return int(size.value)
    return typed.tunables.get(size.key)


def _module(typed: TypedSketch, name: str, tunables: dict[str, int], helpers: set[str],
            kernels: list[str], host: str, k_major: bool = False, l2_grid: bool = False,
            resident: bool = False) -> str:
    sk = typed.sketch
    lib = helpers_needing_libdevice(helpers)
    head = [f'"""Triton kernels generated from sketch `{sk.name}` (akg_rag.lower.triton).',
            "",
            f"Entry point: {name}({', '.join(t.name for t in typed.arguments)}). Module-level tunables "
            "are read at call time.",
            '"""', ""]
    if lib or resident:
        head.append("import os")
        head.append("")
    head += ["import torch", "import triton", "import triton.language as tl"]
    if lib:
        head.append("from triton.language.extra import libdevice")
    head.append("")
    for key, value in tunables.items():
        head.append(f"{key} = {value}")
    parts = ["\n".join(head)]
    if helpers:
        parts.append(helper_sources(helpers).rstrip("\n"))
    parts += [k.rstrip("\n") for k in kernels]
    parts.append(CHECK_HELPER.rstrip("\n"))
    if k_major:
        parts.append(K_MAJOR_HELPER.rstrip("\n"))
    if l2_grid:
        parts.append(L2_GRID_HELPER.rstrip("\n"))
    if resident:
        parts.append(RESIDENT_HELPER.rstrip("\n"))
    parts.append(host.rstrip("\n"))
    return "\n\n\n".join(parts) + "\n"


def _identifiers(typed: TypedSketch) -> set[str]:
    sk = typed.sketch
    names = {s.name for s in sk.symbols} | {p.name for p in sk.params} | {t.name for t in sk.tensors}

    def walk(body: list[Stmt]) -> None:
        for s in body:
            if isinstance(s, For):
                names.add(s.var)
                walk(s.body)
            elif isinstance(s, (Alloc, Assign)):
                names.add(s.target)
            elif isinstance(s, Load):
                names.add(s.dst)

    walk(sk.body)
    return names


__all__ = ["emit_triton", "SketchError"]
