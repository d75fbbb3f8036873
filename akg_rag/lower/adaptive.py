"""Adaptive pooling whose windows do not tile the input, as ops the lowering generates.

Output ``o`` of a pooled dimension of length ``L`` into ``O`` covers ``[floor(o L / O),
ceil((o + 1) L / O))``; where ``O`` divides ``L`` every window is the same and the op stays whole (a
plain pool core). Otherwise windows differ in length and may overlap, and torch's own
decompositions either gather every window of every dimension at once (a tensor the size of the
input times the window's area) or give up (max pooling). Both reductions here are separable -- the
mean over a box is the mean over one dimension after another, and so is the maximum -- so each
pooled dimension becomes one gather of its widest window (``index`` with an ``[O, widest]`` index,
clamped into the input), a mask of the window's real length, and a reduction over the window,
the last dimension first: each step reads what the step before wrote, at most the input's size.

Max pooling returns its indices too. They are not separable in that form, so they come from the
op itself, traced once more under :data:`_INSIDE`: where a program uses only the values, the op's
node has no user left and the graph drops it; where the indices are used, they stay a torch call.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import torch

aten = torch.ops.aten

_INSIDE = threading.local()   # set while the op itself is traced from within its decomposition


def _windows(length: int, out: int) -> tuple[list[int], list[int]]:
    """Start and end (exclusive) of every adaptive window of ``out`` over ``length``."""
    starts = [(o * length) // out for o in range(out)]
    ends = [-((-(o + 1) * length) // out) for o in range(out)]
    return starts, ends


def _gather(x: torch.Tensor, dim: int, length: int, out: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``x``'s windows along ``dim`` as a new pair of dimensions ``[out, widest]`` at ``dim``, the
    mask of real positions (shaped to broadcast against them) and each window's length (shaped to
    broadcast against the reduction over ``dim + 1``)."""
    starts, ends = _windows(length, out)
    widest = max(e - s for s, e in zip(starts, ends))
    o = torch.arange(out, device=x.device, dtype=torch.int64)
    start = torch.div(o * length, out, rounding_mode="floor").unsqueeze(-1)
    end = torch.div((o + 1) * length + out - 1, out, rounding_mode="floor").unsqueeze(-1)
    pos = start + torch.arange(widest, device=x.device, dtype=torch.int64)
    inside = pos < end
    pos = torch.clamp(pos, max=length - 1)
    index: list[Any] = [None] * dim + [pos]
    vals = aten.index.Tensor(x, index)
    trailing = x.dim() - dim - 1
    mask = inside.reshape(inside.shape + (1,) * trailing)
    count = (end - start).reshape((out,) + (1,) * trailing)   # against the window's reduction
    return vals, mask, count


def _pooled_dims(x: torch.Tensor, output_size: Any) -> list[tuple[int, int, int]]:
    """(dimension, length, output length) of every pooled dimension, the last first."""
    n = len(output_size)
    dims = [(x.dim() - n + k, int(x.shape[x.dim() - n + k]), int(o)) for k, o in enumerate(output_size)]
    return list(reversed(dims))


def _tiles(x: torch.Tensor, output_size: Any) -> bool:
    return all(length % out == 0 for _, length, out in _pooled_dims(x, output_size))


def adaptive_avg(x: torch.Tensor, output_size: Any) -> Any:
    """Adaptive average pooling over the last ``len(output_size)`` dimensions."""
    if _tiles(x, output_size):
        return NotImplemented
    y = x
    for dim, length, out in _pooled_dims(x, output_size):
        vals, mask, count = _gather(y, dim, length, out)
        total = torch.where(mask, vals, torch.zeros((), dtype=vals.dtype, device=vals.device)).sum(dim + 1)
        y = total / count.to(total.dtype)
    return y


def adaptive_max(op: Callable[..., Any], tiled: Callable[..., Any]) -> Callable[..., Any]:
    """Adaptive max pooling (values, indices) of ``op`` (``adaptive_max_pool2d`` or ``3d``);
    ``tiled`` is torch's decomposition, which handles windows that tile the input."""
    def pool(x: torch.Tensor, output_size: Any) -> Any:
        if getattr(_INSIDE, "on", False) or not x.dtype.is_floating_point:
            return NotImplemented
        if _tiles(x, output_size):
            return tiled(x, output_size)
        y = x
        for dim, length, out in _pooled_dims(x, output_size):
            vals, mask, _ = _gather(y, dim, length, out)
            low = torch.full((), float("-inf"), dtype=vals.dtype, device=vals.device)
            # amax propagates NaN, as max pooling does
            y = torch.amax(torch.where(mask, vals, low), dim + 1)
        _INSIDE.on = True
        try:
            indices = op(x, output_size)[1]
        finally:
            _INSIDE.on = False
        return y, indices
    return pool


def table(torch_table: dict[Any, Callable[..., Any]]) -> dict[Any, Callable[..., Any]]:
    """Decompositions of the adaptive pools with uneven windows; average pools that tile stay
    whole, max pools that tile take ``torch_table``'s decomposition (torch's)."""
    out: dict[Any, Callable[..., Any]] = {aten._adaptive_avg_pool2d.default: adaptive_avg,
                                          aten._adaptive_avg_pool3d.default: adaptive_avg}
    for op in (aten.adaptive_max_pool2d.default, aten.adaptive_max_pool3d.default):
        if op in torch_table:
            out[op] = adaptive_max(op, torch_table[op])
    return out
