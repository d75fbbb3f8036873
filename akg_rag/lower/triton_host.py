"""The host function of a generated Triton module (used by :mod:`akg_rag.lower.triton`).

``def {name}(*tensors)`` checks the argument count, ranks, shapes and dtypes, binds the symbols
from the shapes (``ValueError`` naming the tensor and the expected shape on a mismatch), reads the
module-level tunables at call time, allocates the ``temp`` tensors, decides int32 or int64 index
arithmetic, and launches the kernels in order.
"""

from __future__ import annotations

import dataclasses

from akg_rag.lower.triton_barrier import COUNTER_SPACING, counters, counts
from akg_rag.lower.triton_pipe import PIPE_MAX
from akg_rag.lower.triton_expr import ExprWriter
from akg_rag.lower.triton_names import Blocks, Namer
from akg_rag.lower.triton_kernel import INDENT, KernelWriter
from akg_rag.lower.typed import TypedSketch
from akg_rag.sketch.nodes import Call, Expr, For, Name, Num

TORCH = {"f16": "torch.float16", "bf16": "torch.bfloat16", "f32": "torch.float32", "f64": "torch.float64",
         "i8": "torch.int8", "i16": "torch.int16", "i32": "torch.int32", "i64": "torch.int64",
         "u8": "torch.uint8", "bool": "torch.bool"}

CHECK_HELPER = '''\
def _rank(t, name, decl, rank):
    """Raise ValueError unless ``t`` is a tensor of rank ``rank``."""
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dim() != rank:
        raise ValueError(f"{name} must have rank {rank} ({decl}), got shape {tuple(t.shape)}")


def _expect(t, name, decl, shape, dtype, sizes):
    """Raise ValueError unless tensor ``t`` has ``shape`` and ``dtype``."""
    if t.shape != shape:
        raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {decl} = {tuple(shape)} with {sizes}")
    if t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}, expected {dtype} ({decl})")


def _span(t):
    """Elements between a tensor's first and last addressed element, plus one (at least numel)."""
    if t.is_contiguous():
        return t.numel()
    return max(t.numel(), 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride())))


def _p2(n):
    """The smallest power of two >= n, and 1 for n < 1 (a tile extent)."""
    return 1 << (n - 1).bit_length() if n > 1 else 1
'''


# A launch whose programs read a row again in a later pass runs a grid-stride loop over its grid
# points. GRID_MODE 1 launches one program per grid point; 2 launches as many as keep the rows in
# flight (bytes each grid point reads again, times the programs running) within half the L2, and at
# least one per SM: the second read then comes from L2.
L2_GRID_HELPER = '''\
_L2_GRID = {}


def _l2_grid(programs, reread, mode):
    """Programs to launch for ``programs`` grid points: all of them (mode 1), or as many as keep
    the re-read rows of the ones in flight within half the L2, at least one per SM (mode 2)."""
    if mode != 2 or programs <= 1 or reread[0].device.type != "cuda":
        return programs
    dev = reread[0].device
    key = dev.index if dev.index is not None else torch.cuda.current_device()
    if key not in _L2_GRID:
        props = torch.cuda.get_device_properties(key)
        _L2_GRID[key] = (props.multi_processor_count, getattr(props, "L2_cache_size", 0) or (40 << 20))
    sms, l2 = _L2_GRID[key]
    per = max(1, sum(t.numel() * t.element_size() for t in reread) // programs)
    return max(1, min(programs, max(sms, l2 // 2 // per)))
'''


# DOT_MODE 3 and 4: an f32 dot operand that does not run along K contiguously is copied into a
# layout that does (one read and one write of it), then the dot takes three TF32 products. Mode 3
# copies only an operand each of whose elements meets at least _K_MAJOR_MIN_USES rows of the other:
# the copy costs 8 bytes per element (about 2 ns per thousand elements at 4.2 TB/s), the split
# products save per element and row met twice the flop time difference of the two products. On the
# H200, batched 256 x 512 @ 512 x 1024 (256 rows per element of B, the lowered candidate at its
# default tiles) ran 0.96 ms without the copy (IEEE products) and 0.67 ms with it (1.10x eager;
# docs/results/h200/seed-sweeps-run11.jsonl); the matmul seeds (4096 rows, B copied) ran
# 1.32-1.52x eager. The estimate above puts break-even near 100 rows; 256 is the measured gain.
K_MAJOR_HELPER = '''\
_K_MAJOR_MIN_USES = 256  # rows of the other operand each element meets; fewer: no copy in DOT_MODE 3


@triton.jit
def _k_major_kernel(src_ptr, dst_ptr, R, C, RD, CD, s_b, s_r, s_c, d_b, d_r, d_c, tile: tl.constexpr):
    """dst[b, r, c] = src[b, r, c] over one tile x tile block of dst's RD x CD (program axis 1: the
    batch index); dst past src's R x C is written with zeros."""
    pid = tl.program_id(0)
    b = tl.program_id(1)
    nc = (CD + tile - 1) // tile
    r = (pid // nc) * tile + tl.arange(0, tile)[:, None]
    c = (pid % nc) * tile + tl.arange(0, tile)[None, :]
    v = tl.load(src_ptr + b * s_b + r * s_r + c * s_c, mask=(r < R) & (c < C), other=0.0)
    tl.store(dst_ptr + b * d_b + r * d_r + c * d_c, v, mask=(r < RD) & (c < CD))


def _k_major(t, k, pad=1):
    """``t`` itself when its dim ``k`` has stride 1 (and an extent that is a multiple of ``pad``),
    else a copy of it whose dim ``k`` has, that dim's extent rounded up to a multiple of ``pad``,
    zeros past the end (rank 2 or 3, fewer than 2**31 elements, no broadcast dim; a contiguous
    tensor of higher rank with ``pad`` 1, e.g. channels-last from NCHW; any other tensor is
    returned unchanged)."""
    if (t.dim() > 3 and pad == 1 and t.is_contiguous() and t.shape[k] > 1 and t.stride(k) != 1
            and t.numel() < 2**31):
        # dims before k as the batch, k as the rows, the dims after k (stride(k) elements) the columns
        rows, cols = t.shape[k], t.stride(k)
        dst = torch.empty([*t.shape[:k], *t.shape[k + 1:], rows], dtype=t.dtype, device=t.device)
        src3 = t.reshape(-1, rows, cols)
        dst3 = dst.reshape(src3.shape[0], cols, rows).transpose(1, 2)
        _k_major_kernel[(triton.cdiv(rows, 64) * triton.cdiv(cols, 64), src3.shape[0])](
            src3, dst3, rows, cols, rows, cols, *src3.stride(), *dst3.stride(), tile=64)
        return dst.permute([*range(k), t.dim() - 1, *range(k, t.dim() - 1)])
    kp = -(-t.shape[k] // pad) * pad if t.dim() in (2, 3) else 0
    if ((t.stride(k) == 1 and kp == t.shape[k]) or t.dim() not in (2, 3) or t.numel() == 0
            or t.numel() // t.shape[k] * kp >= 2**31
            or any(st == 0 and n > 1 for st, n in zip(t.stride(), t.shape))):
        return t
    order = [d for d in range(t.dim()) if d != k] + [k]
    extents = [kp if d == k else t.shape[d] for d in range(t.dim())]
    dst = torch.empty([extents[d] for d in order], dtype=t.dtype, device=t.device)
    dst = dst.permute([order.index(d) for d in range(t.dim())])
    src3, dst3 = (x if x.dim() == 3 else x.unsqueeze(0) for x in (t, dst))
    B, R, C = src3.shape
    _, RD, CD = dst3.shape
    _k_major_kernel[(triton.cdiv(RD, 64) * triton.cdiv(CD, 64), B)](
        src3, dst3, R, C, RD, CD, *src3.stride(), *dst3.stride(), tile=64)  # not a tunable of the candidate
    return dst


def _k_padded(a, ka, b, kb):
    """K-major copies of dot operands ``a`` and ``b`` with K zero-padded to a multiple of 16, and
    the padded K: (a, b, K) unchanged when either cannot be copied so (the dot is unchanged by
    zeros along K; Triton vectorises K-masked loads only when K is a multiple of 16)."""
    pa = _k_major(a, ka, 16)
    pb = pa if b is a else _k_major(b, kb, 16)
    if pa.shape[ka] % 16 or pb.shape[kb] % 16 or pa.shape[ka] != pb.shape[kb]:
        return a, b, a.shape[ka]
    return pa, pb, pa.shape[ka]


def _uses(t, k, n, other, k_other, m_other):
    """Rows of the other operand that each element of dot operand ``t`` (K along dim ``k``, its
    free dim ``n``) is multiplied with: the other's rows per slice of ``t`` (a batched ``t`` has
    one slice per batch entry), at least the other's free extent (``t`` broadcast over a batch).
    ``n`` None: ``t``'s rows are gathered (a convolution's patches, each input element in as many
    of them as there are taps), so every row of the other may meet it; ``m_other`` None: the
    other's rows are gathered, no free extent to add."""
    rows = other.numel() // max(1, other.shape[k_other])
    if n is None:
        return rows
    slices = max(1, t.numel() // max(1, t.shape[k] * t.shape[n]))
    return rows // slices if m_other is None else max(other.shape[m_other], rows // slices)
'''


class _HostExpr(ExprWriter):
    """Prints size expressions with the host function's local names."""

    def __init__(self, typed: TypedSketch) -> None:
        self.t = typed

    def var(self, name: str) -> str:
        return Namer.py(name)


def host_source(typed: TypedSketch, name: str, kernels: list[tuple[str, KernelWriter]],
                blocks: Blocks, tunables: dict[str, str]) -> str:
    """Text of ``def name(*tensors)``; ``tunables`` maps parameter -> module-level name."""
    sk = typed.sketch
    args = typed.arguments
    hx = _HostExpr(typed)
    py = Namer.py

    def show(e: Expr) -> str:
        return hx.index(e).text

    decls = ", ".join(f"{t.name}[{', '.join(s.text for s in typed.shapes[t.name])}] {t.dtype} ({t.direction})"
                      for t in args)
    lines = [f"def {name}(*tensors):",
             f'{INDENT}"""Run sketch `{sk.name}` ({len(kernels)} launch{"es" if len(kernels) != 1 else ""}).',
             "",
             f"{INDENT}Tensors, in order: {decls}. Outputs are preallocated by the caller.",
             f'{INDENT}"""']
    names = ", ".join(t.name for t in args)
    lines += [f"{INDENT}if len(tensors) != {len(args)}:",
              f'{INDENT * 2}raise ValueError(f"{name} takes {len(args)} tensors ({names}), got {{len(tensors)}}")']
    if args:
        lines.append(f"{INDENT}{', '.join(py(t.name) for t in args)}{',' if len(args) == 1 else ''} = tensors")
    for t in args:
        if len(t.shape) == 1:  # a 0-d tensor (a scalar result) is declared [1]
            lines.append(f"{INDENT}if isinstance({py(t.name)}, torch.Tensor) and {py(t.name)}.dim() == 0:")
            lines.append(f"{INDENT * 2}{py(t.name)} = {py(t.name)}.view(1)")
        lines.append(f'{INDENT}_rank({py(t.name)}, "{t.name}", "{_decl(typed, t.name)}", {len(t.shape)})')
    if typed.bindings:
        lines.append(f"{INDENT}# sizes, bound from the argument shapes")
    for sym, (tensor, dim) in typed.bindings.items():
        lines.append(f"{INDENT}{py(sym)} = {py(tensor)}.shape[{dim}]")
    sizes = "{" + ", ".join(f'"{s}": {py(s)}' for s in typed.bindings) + "}"
    for t in args:
        shape = ", ".join(show(s.expr) for s in typed.shapes[t.name])
        shape = f"({shape},)" if len(typed.shapes[t.name]) == 1 else f"({shape})"
        lines.append(f'{INDENT}_expect({py(t.name)}, "{t.name}", "{_decl(typed, t.name)}", {shape}, '
                     f"{TORCH[t.dtype]}, {sizes})")
    if typed.tunables:
        lines.append(f"{INDENT}# tunables, read at call time (the search rewrites them in this module)")
    for p in typed.tunables:
        lines.append(f"{INDENT}{py(p)} = {tunables[p]}")
        lines.append(f"{INDENT}if {py(p)} < 1:")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables[p]} must be a positive integer, got {{{py(p)}}}")')
    if "DOT_MODE" in tunables:
        lines.append(f"{INDENT}if {tunables['DOT_MODE']} not in (1, 2, 3, 4):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["DOT_MODE"]} must be 1 (IEEE f32 products), 2 '
                     f'(three TF32 products), 3 (one of them by the operands\' layout) or 4 (K-major copies, '
                     f'then three TF32 products), got {{{tunables["DOT_MODE"]}!r}}")')
    if "GRID_MODE" in tunables:
        lines.append(f"{INDENT}if {tunables['GRID_MODE']} not in (1, 2):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["GRID_MODE"]} must be 1 (one program per grid point) '
                     f'or 2 (a grid sized to the L2), got {{{tunables["GRID_MODE"]}!r}}")')
    if "INTERIOR_MODE" in tunables:
        lines.append(f"{INDENT}if {tunables['INTERIOR_MODE']} not in (1, 2):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["INTERIOR_MODE"]} must be 1 (bounds-masked code only) '
                     f'or 2 (an interior version without bounds masks too), got {{{tunables["INTERIOR_MODE"]}!r}}")')
    if "ALIGN_MODE" in tunables:
        lines.append(f"{INDENT}if {tunables['ALIGN_MODE']} not in (1, 2):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["ALIGN_MODE"]} must be 1 (alignment known: vector '
                     f'accesses where provable) or 2 (alignment hidden: one element a thread), got '
                     f'{{{tunables["ALIGN_MODE"]}!r}}")')
    if "SPAN_MODE" in tunables:
        lines.append(f"{INDENT}if {tunables['SPAN_MODE']} not in (1, 2):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["SPAN_MODE"]} must be 1 (taps load as usual) or 2 '
                     f'(taps from each lane group\'s span in registers), got {{{tunables["SPAN_MODE"]}!r}}")')
    if "LOOP_STAGES" in tunables:
        lines.append(f"{INDENT}if {tunables['LOOP_STAGES']} not in (1, 2, 3, 4, 5):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["LOOP_STAGES"]} must be 1 (streaming loops as '
                     f'written) or 2-5 (their loads software-pipelined that deep), got {{{tunables["LOOP_STAGES"]}!r}}")')
    if "PIPE" in tunables:
        pipe = tunables["PIPE"]
        lines.append(f"{INDENT}if not isinstance({pipe}, int) or not 0 <= {pipe} <= {PIPE_MAX}:")
        lines.append(f'{INDENT * 2}raise ValueError(f"{pipe} must be 0 (cooperative launches as written) or 1-{PIPE_MAX} '
                     f'(programs a multiprocessor looping over grid points), got {{{pipe}!r}}")')
    if "CACHE_MODE" in tunables:
        lines.append(f"{INDENT}if {tunables['CACHE_MODE']} not in (1, 2):")
        lines.append(f'{INDENT * 2}raise ValueError(f"{tunables["CACHE_MODE"]} must be 1 (no cache hints) or 2 '
                     f'(L2 hints on rows read again, streamed stores), got {{{tunables["CACHE_MODE"]}!r}}")')
    device = py(args[0].name) + ".device" if args else '"cuda"'
    caps = counts(typed, [kw.launch for _, kw in kernels])
    if caps:
        lines.append(f"{INDENT}# barrier counts: at most the programs sure to run at once "
                     "(akg_rag.lower.triton_barrier)")
        lines.append(f"{INDENT}resident = _resident({py(args[0].name)})")
    for p in caps:
        lines.append(f"{INDENT}{py(p)} = min({py(p)}, resident)")
    zeroed = counters(typed)
    for t in typed.temps:
        shape = ", ".join(show(s.expr) for s in typed.shapes[t.name])
        if t.name in zeroed:  # one 128-byte line a counter (akg_rag.lower.triton_barrier)
            lines.append(f"{INDENT}{py(t.name)} = torch.zeros(({shape}, {COUNTER_SPACING}), dtype={TORCH[t.dtype]}, "
                         f"device={device})[..., 0]  # barrier counters")
            continue
        lines.append(f"{INDENT}{py(t.name)} = torch.empty(({shape}{',' if len(t.shape) == 1 else ''}), "
                     f"dtype={TORCH[t.dtype]}, device={device})  # temp")
    every = [py(t.name) for t in sk.tensors]
    lines.append(f"{INDENT}use_int64 = max(_span(t) for t in ({', '.join(every)}{',' if len(every) == 1 else ''})) >= 2**31")
    done: set[str] = set()
    for kernel, kw in kernels:
        for s in kw.sizes.values():
            b = blocks.name(s)
            if blocks.const_block(s) is None and b not in done:
                done.add(b)
                lines.append(f"{INDENT}{b} = {blocks.host(s, hx.size(s).text)}  # tile extent {s.text}")
    for kernel, kw in kernels:
        lines += _launch(kernel, kw, hx, blocks, tunables)
    return "\n".join(lines) + "\n"


def _decl(typed: TypedSketch, tensor: str) -> str:
    return f"{tensor}[{', '.join(s.text for s in typed.shapes[tensor])}]"


def _launch(kernel: str, kw: KernelWriter, hx: _HostExpr, blocks: Blocks, tunables: dict[str, str]) -> list[str]:
    py = Namer.py
    launch = kw.launch
    counts = []
    lines = [f"{INDENT}# launch {launch.index}: {', '.join(ax.var for ax in launch.grid)}"]
    for ax in launch.grid:
        c = hx.index(ax.count)
        counts.append(f"max(0, {c.text})")
    grid = " * ".join(f"({c})" if len(counts) > 1 else c for c in counts)
    lines.append(f"{INDENT}programs = {grid}")
    lines.append(f"{INDENT}if programs > 2**31 - 1:")
    lines.append(f'{INDENT * 2}raise ValueError(f"launch {launch.index} needs {{programs}} programs; '
                 f'at most 2**31 - 1")')
    rename: dict[str, str] = {}   # symbol -> the host local this launch passes instead
    if kw.dot_x3:
        lines += _dot_choice(kw, tunables["DOT_MODE"], rename)
    launched = "programs"
    if kw.reread:
        reread = ", ".join(py(t) for t in kw.reread) + ("," if len(kw.reread) == 1 else "")
        lines.append(f"{INDENT}launched = _l2_grid(programs, ({reread}), {tunables['GRID_MODE']})")
        launched = "launched"
    if kw.piped:   # PIPE programs an SM, each looping over grid points (akg_rag.lower.triton_pipe)
        lines.append(f"{INDENT}launched = min(programs, resident * {tunables['PIPE']}) if {tunables['PIPE']} > 0 else programs")
        launched = "launched"
    lines.append(f"{INDENT}if programs > 0:")
    if kw.barriers:
        lines.append(f"{INDENT * 2}ticket = torch.zeros((1,), dtype=torch.int32, device={py(kw.tensors()[0])}.device)")
    args: list[str] = []
    for name in kw.tensors():
        args.append(py(name))
    for name in kw.tensors():
        args.append(f"*{py(name)}.stride()")  # one call for every dim: the rank is checked above
    args += [rename.get(s, py(s)) for s in launch.symbols]
    if kw.barriers:
        args.append("ticket")
    if kw.reread:
        args.append("programs")
    kwargs = [f"{py(p)}={py(p)}" for p in launch.tunables]
    for s in kw.sizes.values():
        if blocks.const_block(s) is None:
            kwargs.append(f"{blocks.name(s)}={blocks.name(s)}")
    if kw.dot_x3:
        kwargs.append("DOT_X3=dot_x3")
    if kw.reread:
        kwargs.append(f"CACHE_HINTS=int({tunables['CACHE_MODE']} == 2)")
    if kw.versioned:
        kwargs += ["lane_off=0", f"INTERIOR=int({tunables['INTERIOR_MODE']} == 2)",
                   f"HIDE_ALIGN=int({tunables['ALIGN_MODE']} == 2)"]
    if kw.span_used:
        kwargs.append(f"SPAN={tunables['NUM_WARPS']} if {tunables['SPAN_MODE']} == 2 else 0")
    if kw.loop_staged:
        kwargs.append(f"LOOP_STAGES={tunables['LOOP_STAGES']}")
    if kw.piped:
        kwargs.append(f"PIPE=int({tunables['PIPE']} > 0)")
    kwargs += ["USE_INT64=use_int64", f"num_warps={tunables['NUM_WARPS']}",
               f"num_stages={tunables['NUM_STAGES']}"]
    lines.append(f"{INDENT * 2}{kernel}[({launched},)](")
    for chunk in _wrap(args + kwargs):
        lines.append(f"{INDENT * 3}{chunk}")
    lines.append(f"{INDENT * 2})")
    return lines


def _dot_choice(kw: KernelWriter, knob: str, rename: dict[str, str]) -> list[str]:
    """``dot_x3`` (the kernel's 0/1) for one launch from the ``DOT_MODE`` tunable: 1 IEEE, 2 split,
    3 (default) split products on K-major operands, an operand that is not K-major copied into a
    K-major layout first when enough rows of the other meet each of its elements, 4 K-major copies
    of every operand, then split products. Three TF32 products on the tensor cores beat IEEE
    products on the FMA units when both operands of every f32 dot run along K contiguously (A
    row-major, B column-major: an ``nn.Linear`` weight); with a row-major B the TF32 operand is
    transposed on the way to shared memory and the IEEE dot wins, unless a K-major copy of B is
    made first, which pays off once each element of B serves many rows of A. An operand gathered
    along K (the grouped or transposed conv's patch tile, (c, kh, kw) by index arithmetic) takes
    IEEE products; one gathered only along its free axis (the tap-by-tap conv's patch rows, its
    channels a slice) counts as K-major once its K dim has unit stride, and is copied so (for a
    convolution's input: channels-last) when well used -- ``_uses`` then counts every row of the
    other operand, since each input element sits in as many patches as there are taps. Mode
    3 also wants K a multiple of 16: Triton vectorises a K-masked load only when it knows K
    divisible by 16, and scalar loads starve the split products (level1/8, K 2949: 15.6 ms with
    them after the copy, 9.1 ms with IEEE products): when both operands are well used and the launch
    uses K only as the dot's extent (``_pad_symbol``), both are copied K-major with K zero-padded
    to a multiple of 16 and the launch runs the padded K; otherwise the dot takes IEEE products."""
    py = Namer.py
    lines = [f"{INDENT}dot_mode = {knob}", f"{INDENT}dot_x3 = int(dot_mode != 1)"]
    terms: list[str] = []
    copies: dict[tuple[str, int], tuple[str, ...]] = {}   # (tensor, K dim) -> its _uses arguments
    for op in kw.dot_operands:
        if op is None:
            terms, copies = ["False"], {}
            break
        a, ka, ma, b, kb, nb = op
        terms += [f"{py(a)}.stride({ka}) == 1", f"{py(b)}.stride({kb}) == 1",
                  f"{py(a)}.shape[{ka}] % 16 == 0"]
        copies.setdefault((a, ka), (py(a), str(ka), str(ma), py(b), str(kb), str(nb)))
        copies.setdefault((b, kb), (py(b), str(kb), str(nb), py(a), str(ka), str(ma)))
    # only inputs are copied (a copy of a tensor this launch writes would lose the write), and only
    # a tensor read along one K dim (A @ A reads the same tensor along both of its dims)
    dims: dict[str, set[int]] = {}
    for t, k in copies:
        dims.setdefault(t, set()).add(k)
    movable = {key: args for key, args in copies.items()
               if kw.t.tensor(key[0]).direction == "in" and key[0] not in kw.launch.writes
               and len(dims[key[0]]) == 1}
    lines.append(f"{INDENT}if dot_mode == 3:  # split products on K-major operands; well-used ones copied K-major")
    indent = 2
    ops = [op for op in kw.dot_operands if op is not None]
    ksym = _pad_symbol(kw, *ops[0][:2], *ops[0][3:5]) if len(ops) == 1 and len(kw.dot_operands) == 1 else None
    if ksym is not None and all((t, k) in movable for t, k in ((ops[0][0], ops[0][1]), (ops[0][3], ops[0][4]))):
        # K with a tail of 16: both operands copied K-major with K zero-padded, the launch runs the
        # padded K (the launch uses K for nothing else: _pad_symbol)
        a, ka, _, b, kb, _ = ops[0]
        ua, ub = movable[(a, ka)], movable[(b, kb)]
        rename[ksym] = f"dot_k{kw.launch.index}"
        lines.insert(0, f"{INDENT}{rename[ksym]} = {py(ksym)}  # the K this launch runs (padded below)")
        lines.append(f"{INDENT * 2}if ({py(a)}.shape[{ka}] % 16 != 0 and _uses({', '.join(ua)}) >= _K_MAJOR_MIN_USES\n"
                     f"{INDENT * 4}and _uses({', '.join(ub)}) >= _K_MAJOR_MIN_USES):")
        lines.append(f"{INDENT * 3}{py(a)}, {py(b)}, {rename[ksym]} = _k_padded({py(a)}, {ka}, {py(b)}, {kb})")
        lines.append(f"{INDENT * 2}else:")
        indent = 3
    for (t, k), args in movable.items():
        lines.append(f"{INDENT * indent}if ({py(t)}.stride({k}) != 1 and {py(t)}.shape[{k}] % 16 == 0\n"
                     f"{INDENT * (indent + 2)}and _uses({', '.join(args)}) >= _K_MAJOR_MIN_USES):")
        lines.append(f"{INDENT * (indent + 1)}{py(t)} = _k_major({py(t)}, {k})")
    lines.append(f"{INDENT * 2}dot_x3 = int({' and '.join(dict.fromkeys(terms))})")
    lines.append(f"{INDENT}if dot_mode == 4:  # K-major copies of the dot operands, then three TF32 products")
    if not copies or len(movable) != len(copies):
        # an operand that cannot be copied (a temp the sketch writes K-major itself, as a
        # convolution's padded channels-last copies): split products where the layout already fits
        lines.append(f"{INDENT * 2}dot_x3 = int({' and '.join(dict.fromkeys(terms)) or 'False'})")
    else:
        for t, k in movable:
            lines.append(f"{INDENT * 2}{py(t)} = _k_major({py(t)}, {k})")
        lines.append(f"{INDENT * 2}dot_x3 = 1")
    return lines


def _pad_symbol(kw: KernelWriter, a: str, ka: int, b: str, kb: int) -> str | None:
    """The symbol that is K of the launch's one dot, when zero-padding K leaves every result of the
    launch unchanged: K is both operands' dim along the dot (a bound symbol), no other dim of a
    tensor the launch touches, nothing in its grid, and in its body only the stop of one loop
    from 0 that holds the dot; no parameter the launch reads depends on it. Else None."""
    t = kw.t
    sa, sb = t.shapes[a][ka], t.shapes[b][kb]
    if not isinstance(sa.expr, Name) or sa.key != sb.key or sa.expr.id not in t.bindings:
        return None
    k = sa.expr.id
    for name in kw.launch.tensors:
        for d, size in enumerate(t.shapes[name]):
            if k in size.names and (name, d) not in ((a, ka), (b, kb)):
                return None
    if any(k in _names(ax.count) or k in _names(ax.stop) for ax in kw.launch.grid):
        return None
    if any(k in _names(v) for p, v in t.params.items() if p not in t.tunables):
        return None
    loops = [f for f in _walk(kw.launch.body) if isinstance(f, For) and isinstance(f.stop, Name) and f.stop.id == k]
    if len(loops) != 1 or not (loops[0].start is None or (isinstance(loops[0].start, Num) and loops[0].start.value == 0)):
        return None
    loop = loops[0]
    if not any(isinstance(n, Call) and n.func == "matmul" for n in _walk(loop.body)):
        return None
    uses = sum(1 for n in _walk(kw.launch.body) if isinstance(n, Name) and n.id == k)
    return k if uses == 1 else None


def _walk(node):
    """Every sketch node under ``node`` (statements, expressions, lists of them), ``node`` first."""
    if isinstance(node, list):
        for x in node:
            yield from _walk(x)
        return
    if isinstance(node, dict):
        for x in node.values():
            yield from _walk(x)
        return
    if not dataclasses.is_dataclass(node):
        return
    yield node
    for f in dataclasses.fields(node):
        yield from _walk(getattr(node, f.name))


def _names(e) -> set[str]:
    return {n.id for n in _walk(e) if isinstance(n, Name)}


def _wrap(items: list[str], width: int = 88) -> list[str]:
    out, cur = [], ""
    for it in items:
        piece = f"{it},"
        if cur and len(cur) + 1 + len(piece) > width:
            out.append(cur)
            cur = piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    if cur:
        out.append(cur)
    return out

