"""A constant prefix of a scan's result moved into the scan: ``cat([c, cumsum(y, d)], d)`` becomes
``cumsum(cat([c, y], d), d)`` when ``c`` is the scan's identity.

An exclusive prefix sum is often written as a column of zeros followed by the inclusive sum of
all but the last element (``cat([zeros, cumsum(x[:, :-1])], 1)``). Partitioned as written, that
is two kernels: the scan stores its whole result, and the concatenation reads it back at shifted
positions and writes it again -- a write and a read of the whole tensor more than the computation
needs. Since prepending the identity of the scan's operation (0 for a sum, 1 for a product) to its
input prepends it to the result and leaves every later prefix unchanged, the concatenation can move
before the scan: the concatenation of a constant and a view is a positional expression, which
becomes the scan's prologue, so the whole is one scan kernel that reads its input once.

It works on the captured graph before partitioning, like :mod:`akg_rag.lower.matvec`. Rewritten
only when the constant piece is a ``full``/``zeros``/``ones`` (or ``*_like``) of exactly the
identity, the scan's result is read by the concatenation alone, the concatenation has these two
pieces along the scan's dim, and no dtype changes on the way (the sum rounds the same values in
the same order either way).
"""

from __future__ import annotations

from typing import Any

import torch

from akg_rag.lower.fx_rewrite import emit, op_name, replace, val

aten = torch.ops.aten

_IDENTITY = {"cumsum": 0.0, "cumprod": 1.0}
# constant-tensor factories and the argument position of their fill value (None: implied)
_FILLS = {"full": 1, "full_like": 1, "new_full": 2, "zeros": None, "zeros_like": None,
          "new_zeros": None, "ones": None, "ones_like": None, "new_ones": None}


def _fill(node: Any) -> float | None:
    """The value every element of ``node`` holds when it is a constant-tensor factory, else None."""
    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return None
    name = op_name(node)
    if name not in _FILLS:
        return None
    at = _FILLS[name]
    if at is None:
        return 1.0 if name.startswith(("ones", "new_ones")) else 0.0
    value = node.args[at] if len(node.args) > at else node.kwargs.get("fill_value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _dim(d: Any, rank: int) -> int | None:
    return d % rank if isinstance(d, int) and rank else None


def scan_prefix_into_scan(gm: torch.fx.GraphModule) -> int:
    """Rewrite every ``cat([identity, cumsum(y, d)], d)`` of ``gm`` into ``cumsum(cat([identity, y],
    d), d)`` (module doc); returns how many were rewritten."""
    g = gm.graph
    count = 0
    for node in list(g.nodes):
        if node.op != "call_function" or op_name(node) != "cat" or node.kwargs:
            continue
        pieces = node.args[0]
        out = val(node)
        if not isinstance(pieces, (list, tuple)) or len(pieces) != 2 or not isinstance(out, torch.Tensor):
            continue
        const, scan = pieces
        op = op_name(scan) if isinstance(scan, torch.fx.Node) else ""
        if op not in _IDENTITY or len(scan.users) != 1 or scan.kwargs.get("dtype") is not None or len(scan.args) > 2:
            continue
        y = scan.args[0]
        rank = out.dim()
        d = _dim(node.args[1] if len(node.args) > 1 else 0, rank)
        if d is None or _dim(scan.args[1], rank) != d or _fill(const) != _IDENTITY[op]:
            continue
        vc, vy, vs = val(const), val(y), val(scan)
        if not all(isinstance(v, torch.Tensor) for v in (vc, vy, vs)) or \
                not (vc.dtype == vy.dtype == vs.dtype == out.dtype) or not vs.dtype.is_floating_point:
            continue
        with g.inserting_before(node):
            joined = emit(g, aten.cat.default, [const, y], d)
            new = emit(g, getattr(aten, op).default, joined, d)
        replace(g, node, new, "scan prefix")
        count += 1
    if count:
        g.eliminate_dead_code()
        gm.recompile()
    return count
