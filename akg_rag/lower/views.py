"""Host-side view ops: which aten ops are layout-only, and how each is spelled as a Tensor method.

A view step in ``ModelNew.forward`` is ``out = src.<method>(*args)``; :func:`view_call` gives the
method and arguments for an aten view op, with shapes and indices already normalised (non-negative
dims, slice ends clamped). ``prims.broadcast_in_dim`` becomes two steps (reshape, then expand).
"""

from __future__ import annotations

from typing import Any

import torch

# Ops that only alias their first argument: no step at all.
IDENTITY_OPS = frozenset({"alias", "clone", "lift_fresh_copy", "contiguous", "detach", "lift_fresh",
                          "_unsafe_view_copy_noop"})
VIEW_OPS = frozenset({"view", "_unsafe_view", "reshape", "permute", "transpose", "t", "expand",
                      "unsqueeze", "squeeze", "slice", "select", "narrow", "diagonal", "unfold",
                      "broadcast_in_dim", "split", "split_with_sizes", "unbind", "view_of",
                      "expand_copy", "view_copy", "permute_copy", "unsqueeze_copy", "squeeze_copy",
                      "transpose_copy", "t_copy", "slice_copy", "select_copy", "alias_copy",
                      "_reshape_alias", "collapse_view", "split_dim", "movedim"})
MAX_INT = 2**62


def _dim(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def view_calls(name: str, args: tuple, in_shape: tuple[int, ...],
               out_shape: tuple[int, ...]) -> list[tuple[str, tuple]] | None:
    """Tensor-method calls that turn a tensor of ``in_shape`` into the view ``name(*args)`` has;
    None when the op is not a single-output view handled here."""
    base = name.removesuffix("_copy") if name.endswith("_copy") else name
    rank = len(in_shape)
    if base == "view" and len(args) > 1 and isinstance(args[1], torch.dtype):
        return [("view", (args[1],))]   # the same bytes read as another dtype
    if base in ("view", "_unsafe_view", "reshape", "_reshape_alias", "collapse_view", "split_dim",
                "view_of"):
        return [("reshape", (tuple(out_shape),))]
    if base == "permute":
        return [("permute", (tuple(_dim(d, rank) for d in args[1]),))]
    if base == "movedim":
        return None
    if base == "transpose":
        return [("transpose", (_dim(args[1], rank), _dim(args[2], rank)))]
    if base == "t":
        return [("t", ())]
    if base == "expand":
        return [("expand", (tuple(out_shape),))]
    if base == "unsqueeze":
        return [("unsqueeze", (_dim(args[1], rank + 1),))]
    if base == "squeeze":
        return [("reshape", (tuple(out_shape),))]
    if base == "select":
        d = _dim(args[1], rank)
        i = args[2] + in_shape[d] if args[2] < 0 else args[2]
        return [("select", (d, i))]
    if base == "narrow":
        return [("narrow", (_dim(args[1], rank), args[2], args[3]))]
    if base == "slice":
        d = _dim(args[1] if len(args) > 1 else 0, rank)
        n = in_shape[d]
        start = args[2] if len(args) > 2 and args[2] is not None else 0
        end = args[3] if len(args) > 3 and args[3] is not None else n
        step = args[4] if len(args) > 4 else 1
        start = max(0, min(n, start + n if start < 0 else start))
        end = max(start, min(n, end + n if end < 0 else end))
        if step == 1:
            return [("narrow", (d, start, end - start))]
        index = (slice(None),) * d + (slice(start, end, step),)
        return [("__getitem__", (index,))]
    if base == "diagonal":
        off = args[1] if len(args) > 1 else 0
        d1 = _dim(args[2] if len(args) > 2 else 0, rank)
        d2 = _dim(args[3] if len(args) > 3 else 1, rank)
        return [("diagonal", (off, d1, d2))]
    if base == "unfold":
        return [("unfold", (_dim(args[1], rank), args[2], args[3]))]
    if base == "broadcast_in_dim":
        shape, bdims = list(args[1]), list(args[2])
        mid = [1] * len(shape)
        for j, d in enumerate(bdims):
            mid[d] = in_shape[j]
        calls = [("reshape", (tuple(mid),))]
        if tuple(mid) != tuple(shape):
            calls.append(("expand", (tuple(shape),)))
        return calls
    return None


def split_calls(name: str, args: tuple, in_shape: tuple[int, ...]) -> list[tuple[str, tuple]] | None:
    """One ``narrow``/``select`` call per output of a multi-output view (split, unbind)."""
    rank = len(in_shape)
    if name in ("split", "split_with_sizes"):
        d = _dim(args[2] if len(args) > 2 else 0, rank)
        n = in_shape[d]
        sizes = list(args[1]) if isinstance(args[1], (list, tuple)) else \
            [min(args[1], n - s) for s in range(0, n, args[1])]
        calls, start = [], 0
        for s in sizes:
            calls.append(("narrow", (d, start, s)))
            start += s
        return calls
    if name == "unbind":
        d = _dim(args[1] if len(args) > 1 else 0, rank)
        return [("select", (d, i)) for i in range(in_shape[d])]
    return None


def is_broadcast_of(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """True when ``src`` broadcasts to ``dst`` NumPy-style (right-aligned)."""
    if len(src) > len(dst):
        return all(s == 1 for s in src[: len(src) - len(dst)]) and \
            is_broadcast_of(src[len(src) - len(dst):], dst)
    tail = dst[len(dst) - len(src):]
    return all(s == d or s == 1 for s, d in zip(src, tail))


def strip_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    """``(1, 1, 4, 1)`` -> ``(4, 1)``."""
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def render_arg(x: Any) -> str:
    """Python source for a view argument (tuples, slices, ints)."""
    if isinstance(x, slice):
        return f"slice({x.start!r}, {x.stop!r}, {x.step!r})"
    if isinstance(x, tuple):
        inner = ", ".join(render_arg(a) for a in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    if isinstance(x, torch.dtype):
        return str(x)
    return repr(x)
