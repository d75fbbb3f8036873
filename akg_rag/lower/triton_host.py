"""The host function of a generated Triton module (used by :mod:`akg_rag.lower.triton`).

``def {name}(*tensors)`` checks the argument count, ranks, shapes and dtypes, binds the symbols
from the shapes (``ValueError`` naming the tensor and the expected shape on a mismatch), reads the
module-level tunables at call time, allocates the ``temp`` tensors, decides int32 or int64 index
arithmetic, and launches the kernels in order.
"""

from __future__ import annotations

from akg_rag.lower.triton_expr import Blocks, ExprWriter, Namer
from akg_rag.lower.triton_kernel import INDENT, KernelWriter
from akg_rag.lower.typed import TypedSketch
from akg_rag.sketch.nodes import Expr

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
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {decl} = {tuple(shape)} with {sizes}")
    if t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}, expected {dtype} ({decl})")


def _span(t):
    """Elements between a tensor's first and last addressed element, plus one (at least numel)."""
    return max(t.numel(), 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride())))
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
    device = py(args[0].name) + ".device" if args else '"cuda"'
    for t in typed.temps:
        shape = ", ".join(show(s.expr) for s in typed.shapes[t.name])
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
    lines.append(f"{INDENT}if programs > 0:")
    args: list[str] = []
    for name in kw.tensors():
        args.append(py(name))
    for name in kw.tensors():
        args += [f"{py(name)}.stride({k})" for k in range(len(kw.t.shapes[name]))]
    args += [py(s) for s in launch.symbols]
    kwargs = [f"{py(p)}={py(p)}" for p in launch.tunables]
    for s in kw.sizes.values():
        if blocks.const_block(s) is None:
            kwargs.append(f"{blocks.name(s)}={blocks.name(s)}")
    kwargs += ["USE_INT64=use_int64", f"num_warps={tunables['NUM_WARPS']}",
               f"num_stages={tunables['NUM_STAGES']}"]
    lines.append(f"{INDENT * 2}{kernel}[(programs,)](")
    for chunk in _wrap(args + kwargs):
        lines.append(f"{INDENT * 3}{chunk}")
    lines.append(f"{INDENT * 2})")
    return lines


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

