"""Index-style aten ops as ``index`` / ``gather`` expressions (region.py), so they fuse with
their pointwise neighbours instead of staying torch calls.

Every op here gives its node a *groupless* symbolic value over the op's output shape:

* ``arange``: a function of the element's position (``index`` leaf); ``triu``/``tril`` and
  ``one_hot`` decompose into arange, compares and ``where``, so they need nothing else;
* ``cat``: ``where`` over the position along the cat dim, choosing a gather from each input
  (shifted by the sizes before it); a constant input (``zeros_like``) is inlined;
* ``constant_pad_nd``: a gather at the shifted position, ``other`` = the pad value;
* ``flip`` / ``roll`` / ``repeat``: gathers at the reversed / rotated / wrapped position;
* ``gather`` / ``index_select`` / ``index.Tensor`` (and ``embedding``, decomposed into index):
  gathers whose index along the selected dim is the index tensor's expression (loaded from an
  int input, or computed, as roll's decomposition computes it from an arange);
* ``slice_scatter`` / ``select_scatter`` (what functionalisation makes of a write into a slice):
  ``where`` over the position, the written tensor gathered at the slice's position, the base at
  the element's own.

A small groupless operand (an expression not yet stored, up to ``INLINE_LIMIT`` nodes) is read at
the new position by substitution (:func:`subst`): its inputs become gathers, its index leaves the
new indices, so ``cat([x, 2 * x])`` is one kernel. Anything else is stored and gathered: a gather
reads any element, so it cannot read a value still being computed in the same kernel (the
producing region is closed first). An index tensor that belongs to an open region is stored too,
so the result never belongs to a region: it joins whichever region its consumers pick, like any
other groupless expression.

Index arithmetic uses the captured sizes (the decompositions already do: ``roll`` arrives as
``fmod(arange(0, 8) + 5, 8)``); index ``Expr`` dims count from the end while groupless
(see :func:`remap`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from akg_rag.lower.pointwise import _to
from akg_rag.lower.region import Expr, Value, ViewStep, expr_ops

if TYPE_CHECKING:  # pragma: no cover
    from akg_rag.lower.partition import Partitioner, _Sym

_I64 = "int64"
_POSITIONAL = frozenset({"index", "gather"})
_LEAVES = frozenset({"input", "index", "gather", "acc", "reduced", "numel"})
INLINE_LIMIT = 24   # nodes: a groupless operand up to this size is substituted, not stored


def _shape(node: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in node.meta["val"].shape)


def _dtype(node: Any) -> str:
    return str(node.meta["val"].dtype).removeprefix("torch.")


def _dim(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def positional(e: Expr) -> bool:
    """True when ``e`` has ``index`` or ``gather`` leaves."""
    return bool(expr_ops(e) & _POSITIONAL)


def _i(v: int) -> Expr:
    return Expr.const(int(v), _I64)


def _add(e: Expr, k: int) -> Expr:
    if k == 0:
        return e
    return Expr.call("add", e, _i(k)) if k > 0 else Expr.call("sub", e, _i(-k))


def remap(p: "Partitioner", e: Expr, old: tuple[int, ...], new_rank: int,
          dim_map: list[int | None]) -> Expr:
    """A groupless ``e`` aligned to shape ``old`` rewritten to align to a shape of rank
    ``new_rank``, old dim ``j`` sitting at new dim ``dim_map[j]`` (increasing; None only for a
    size-1 dim, which is dropped). Inputs get host reshape views; index leaves move."""
    r = len(old)
    if e.op == "input":
        v = p.values[e.ref]  # type: ignore[index]
        padded = (1,) * (r - len(v.shape)) + tuple(v.shape)
        shape = [1] * new_rank
        for j, size in enumerate(padded):
            if dim_map[j] is not None:
                shape[dim_map[j]] = size  # type: ignore[index]
            elif size != 1:
                raise ValueError(f"{v.name} {v.shape}: dim {j} of size {size} cannot be dropped")
        from akg_rag.lower.views import strip_leading_ones
        if strip_leading_ones(tuple(shape)) == strip_leading_ones(tuple(v.shape)):
            return e
        p.use(v)
        out = p.new_value(f"{v.name}_kd", tuple(shape), v.dtype)
        p.steps.append(ViewStep(out=out, src=v, op="reshape", args=(tuple(shape),)))
        return Expr.input(out.name)
    if e.op == "index":
        j = int(e.value) + r  # type: ignore[arg-type]
        to = dim_map[j]
        if to is None:
            raise ValueError(f"an index leaf on dropped dim {j}")
        return Expr.index(to - new_rank)
    if e.op == "gather":  # the gathered tensor has its own shape: only the indices move
        return Expr(e.op, tuple(remap(p, a, old, new_rank, dim_map) for a in e.args), e.ref, e.value, e.dtype)
    if not e.args:
        return e
    return Expr(e.op, tuple(remap(p, a, old, new_rank, dim_map) for a in e.args), e.ref, e.value, e.dtype)


def subst(p: "Partitioner", e: Expr, shape: tuple[int, ...], idx: list[Expr]) -> Expr:
    """The groupless ``e`` (aligned to ``shape``) evaluated at per-dim indices ``idx`` instead of
    the element's own position: inputs become gathers (broadcast dims read at 0), index leaves
    become ``idx``. Every index must lie inside ``shape`` where the result is used."""
    r = len(shape)
    if e.op == "input":
        v = p.values[e.ref]  # type: ignore[index]
        off = r - len(v.shape)
        return Expr.gather(v.name, [idx[off + i] if size != 1 else _i(0) for i, size in enumerate(v.shape)])
    if e.op == "index":
        return idx[int(e.value) + r]  # type: ignore[arg-type]
    if not e.args:
        return e
    return Expr(e.op, tuple(subst(p, a, shape, idx) for a in e.args), e.ref, e.value, e.dtype)


def _const_of(value: Any, dtype: str) -> Expr:
    """``value`` as a constant of ``dtype``'s class."""
    if dtype == "bool":
        return Expr.const(bool(value), "bool")
    if dtype.startswith(("float", "bfloat")):
        return Expr.const(float(value))
    return Expr.const(int(value), dtype)


def _nodes(e: Expr) -> int:
    return 1 + sum(_nodes(a) for a in e.args)


def unit_dim_map(old: tuple[int, ...], new: tuple[int, ...]) -> list[int | None] | None:
    """For a reshape that only inserts or removes size-1 dims: where each old dim goes (None for
    a dropped size-1 dim); None for any other reshape."""
    big_old = [j for j, s in enumerate(old) if s != 1]
    big_new = [k for k, s in enumerate(new) if s != 1]
    if [old[j] for j in big_old] != [new[k] for k in big_new]:
        return None
    out: list[int | None] = [None] * len(old)
    for j, k in zip(big_old, big_new):
        out[j] = k
    return out


class IndexBuilder:
    """Index-style ops for a :class:`~akg_rag.lower.partition.Partitioner` (module docstring)."""

    def __init__(self, p: "Partitioner") -> None:
        self.p = p

    def visit(self, node: torch.fx.Node, name: str, overload: str) -> bool:
        """Handle ``node`` if it is an index-style op; False otherwise."""
        if not isinstance(node.meta.get("val"), torch.Tensor):
            return False
        fn = getattr(self, "_" + name, None) if name in _OPS else None
        if fn is None:
            return False
        expr = fn(node, overload)
        if expr is None:
            return False
        from akg_rag.lower.partition import _Sym
        self.p.env[node] = _Sym(expr, _shape(node), _dtype(node))
        return True

    def slice_view(self, node: torch.fx.Node, name: str, x: "_Sym") -> "_Sym | None":
        """``slice``/``narrow`` of a groupless expression with index or gather leaves, kept
        symbolic: the expression at shifted positions (exclusive cumsum's ``cat(...)[:, :-1]``)."""
        from akg_rag.lower.partition import _Sym
        if x.group is not None or not positional(x.expr) or name not in ("slice", "narrow"):
            return None
        out = _shape(node)
        rank = len(x.shape)
        d = _dim(node.args[1] if len(node.args) > 1 else 0, rank)
        if name == "narrow":
            start, step = node.args[2], 1
        else:
            start = node.args[2] if len(node.args) > 2 and node.args[2] is not None else 0
            step = node.args[4] if len(node.args) > 4 else 1
        if not isinstance(start, int) or not isinstance(step, int):
            return None
        n = x.shape[d]
        start = max(0, min(n, start + n if start < 0 else start))
        idx = [self.pos(out, j) for j in range(rank)]
        if out[d] != 0:
            e = idx[d] if step == 1 else Expr.call("mul", idx[d], _i(step))
            idx[d] = _add(e, start) if out[d] != 1 else _i(start)
        return _Sym(subst(self.p, x.expr, x.shape, idx), out, x.dtype)

    # -- helpers ----------------------------------------------------------------------------------
    def pos(self, out: tuple[int, ...], j: int) -> Expr:
        """The position along output dim ``j`` (the constant 0 on a size-1 dim)."""
        return Expr.index(j - len(out)) if out[j] != 1 else _i(0)

    def source(self, node: Any) -> Value:
        """A gathered tensor: stored, its region closed."""
        return self.p.use(self.p.value_of(node))

    def index_sym(self, node: Any) -> "_Sym":
        """An index tensor's value, groupless (stored first if it belongs to an open region)."""
        s = self.p.as_sym(node)
        return self.p.as_sym_stored(node) if s.group is not None else s

    def read(self, node: Any, idx: list[Expr], out_dtype: str, other: Any = None,
             checked: tuple[int, ...] = ()) -> Expr:
        """``node``'s value at per-dim indices ``idx``, cast to the output's dtype class. Indices
        along ``checked`` dims may fall outside (they read ``other``); the others may not."""
        s = self.p.as_sym(node)
        if s.group is None and s.expr.op != "input" and _nodes(s.expr) <= INLINE_LIMIT:
            e = subst(self.p, s.expr, s.shape, idx)
            if checked:
                conds = [Expr.call("logical_and", Expr.call("ge", idx[j], _i(0)), Expr.call("lt", idx[j], _i(s.shape[j])))
                         for j in checked]
                inside = conds[0]
                for c in conds[1:]:
                    inside = Expr.call("logical_and", inside, c)
                e = Expr.call("where", inside, e, _const_of(other if other is not None else 0, s.dtype))
            return _to(e, s.dtype, out_dtype)
        v = self.source(node)
        return _to(Expr.gather(v.name, idx, other), v.dtype, out_dtype)

    # -- ops --------------------------------------------------------------------------------------
    def _arange(self, node: torch.fx.Node, overload: str) -> Expr | None:
        args = [a for a in node.args]
        if any(isinstance(a, torch.fx.Node) for a in args):
            return None
        start, step = (0, 1) if overload == "default" else (args[0], args[2] if len(args) > 2 else 1)
        out, dt = _shape(node), _dtype(node)
        if dt.startswith(("float", "bfloat")):
            e = Expr.call("add", Expr.call("mul", Expr.call("cast", self.pos(out, 0), dtype=dt),
                                            Expr.const(float(step))), Expr.const(float(start)))
            return e
        if isinstance(start, float) or isinstance(step, float):
            return None
        e = self.pos(out, 0)
        if step != 1:
            e = Expr.call("mul", e, _i(step))
        e = _add(e, int(start))
        return e if dt == _I64 else Expr.call("cast", e, dtype=dt)

    def _cat(self, node: torch.fx.Node, overload: str) -> Expr | None:
        tensors = list(node.args[0])
        out, dt = _shape(node), _dtype(node)
        d = _dim(node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0), len(out))
        parts: list[tuple[int, Expr]] = []   # (offset, value at the shifted position)
        off = 0
        for t in tensors:
            shape = _shape(t)
            if len(shape) != len(out) or shape[d] == 0:
                continue  # torch skips legacy empty 1-D tensors
            idx = [self.pos(out, j) if j != d else _add(self.pos(out, j), -off) for j in range(len(out))]
            idx = [_i(0) if shape[j] == 1 else i for j, i in enumerate(idx)]
            parts.append((off, self.read(t, idx, dt)))
            off += shape[d]
        if not parts:
            return None
        pos = self.pos(out, d)

        def pick(lo: int, hi: int) -> Expr:
            # a balanced tree of selects: nested log2(pieces) deep (a stack of 256 tensors, an
            # unrolled recurrence's outputs, would otherwise nest 256 selects in one expression)
            if hi - lo == 1:
                return parts[lo][1]
            mid = (lo + hi) // 2
            return Expr.call("where", Expr.call("lt", pos, _i(parts[mid][0])), pick(lo, mid), pick(mid, hi))

        return pick(0, len(parts))

    def _constant_pad_nd(self, node: torch.fx.Node, overload: str) -> Expr | None:
        pad = list(node.args[1])
        value = node.args[2] if len(node.args) > 2 else node.kwargs.get("value", 0)
        out, dt = _shape(node), _dtype(node)
        rank = len(out)
        idx, checked = [], []
        for j in range(rank):
            k = rank - 1 - j  # pad pairs start at the last dim
            left = pad[2 * k] if 2 * k < len(pad) else 0
            right = pad[2 * k + 1] if 2 * k + 1 < len(pad) else 0
            idx.append(_add(self.pos(out, j), -left))
            if left > 0 or right > 0:
                checked.append(j)
        other = _const_of(value, dt).value
        return self.read(node.args[0], idx, dt, other, tuple(checked))

    def _flip(self, node: torch.fx.Node, overload: str) -> Expr | None:
        out, dt = _shape(node), _dtype(node)
        dims = {_dim(d, len(out)) for d in node.args[1]}
        idx = [Expr.call("sub", _i(out[j] - 1), self.pos(out, j)) if j in dims and out[j] > 1
               else self.pos(out, j) for j in range(len(out))]
        return self.read(node.args[0], idx, dt)

    def _roll(self, node: torch.fx.Node, overload: str) -> Expr | None:
        out, dt = _shape(node), _dtype(node)
        shifts = list(node.args[1]) if isinstance(node.args[1], (list, tuple)) else [node.args[1]]
        dims = list(node.args[2]) if len(node.args) > 2 else []
        if len(dims) != len(shifts):
            return None  # roll of the flattened tensor
        idx = [self.pos(out, j) for j in range(len(out))]
        for s, d in zip(shifts, dims):
            d = _dim(d, len(out))
            n = out[d]
            if n > 1 and s % n:
                idx[d] = Expr.call("remainder", _add(idx[d], n - s % n), _i(n))
        return self.read(node.args[0], idx, dt)

    def _repeat(self, node: torch.fx.Node, overload: str) -> Expr | None:
        out, dt = _shape(node), _dtype(node)
        shape = _shape(node.args[0])
        off = len(out) - len(shape)
        idx = []
        for i, size in enumerate(shape):
            j = off + i
            e = self.pos(out, j) if size != 1 else _i(0)
            idx.append(Expr.call("remainder", e, _i(size)) if size not in (1, out[j]) else e)
        return self.read(node.args[0], idx, dt)

    def _index_select(self, node: torch.fx.Node, overload: str) -> Expr | None:
        out, dt = _shape(node), _dtype(node)
        d = _dim(node.args[1], len(out))
        s = self.index_sym(node.args[2])
        sel = remap(self.p, s.expr, s.shape, len(out), [d] * len(s.shape)) if s.shape else s.expr
        idx = [self.pos(out, j) if j != d else sel for j in range(len(out))]
        return self.read(node.args[0], idx, dt)

    def _gather(self, node: torch.fx.Node, overload: str) -> Expr | None:
        out, dt = _shape(node), _dtype(node)
        if node.kwargs.get("sparse_grad") or len(out) == 0:
            return None
        d = _dim(node.args[1], len(out))
        s = self.index_sym(node.args[2])
        idx = [self.pos(out, j) if j != d else s.expr for j in range(len(out))]
        return self.read(node.args[0], idx, dt)

    def _index(self, node: torch.fx.Node, overload: str) -> Expr | None:
        """Advanced indexing ``x[i0, :, i2]`` by int tensors (bool masks have data-dependent shapes)."""
        if overload != "Tensor":
            return None
        x, indices = node.args[0], list(node.args[1])
        out, dt = _shape(node), _dtype(node)
        xs = _shape(x)
        tens = [j for j, t in enumerate(indices) if t is not None]
        if not tens or any(_dtype(indices[j]) not in ("int64", "int32") for j in tens):
            return None
        b = len(torch.broadcast_shapes(*[_shape(indices[j]) for j in tens]))
        adjacent = tens == list(range(tens[0], tens[-1] + 1))
        b0 = tens[0] if adjacent else 0
        rest = [j for j in range(len(xs)) if j not in tens]
        if len(out) != len(rest) + b:
            return None
        syms = {j: self.index_sym(indices[j]) for j in tens}
        idx: list[Expr] = []
        k = 0  # next output dim of a non-indexed x dim
        for j in range(len(xs)):
            if j in syms:
                s = syms[j]
                e = remap(self.p, s.expr, (1,) * (b - len(s.shape)) + s.shape, len(out),
                          [b0 + i for i in range(b)])
                e = _to(e, s.dtype, _I64)
                # negative indices count from the end
                idx.append(Expr.call("where", Expr.call("lt", e, _i(0)), _add(e, xs[j]), e))
            else:
                if k == b0 and (adjacent or k == 0):
                    k += b
                idx.append(self.pos(out, k))
                k += 1
        return self.read(x, idx, dt)

    def _slice_scatter(self, node: torch.fx.Node, overload: str) -> Expr | None:
        """``base`` with ``src`` written into ``base[..., start:end:step, ...]`` along ``dim``:
        a select between ``src`` at the slice's position and ``base`` at the element's own."""
        args = list(node.args) + [None] * (6 - len(node.args))
        base, src = args[0], args[1]
        out, dt = _shape(node), _dtype(node)
        d = _dim(args[2] if args[2] is not None else node.kwargs.get("dim", 0), len(out))
        start = args[3] if args[3] is not None else node.kwargs.get("start")
        end = args[4] if args[4] is not None else node.kwargs.get("end")
        step = args[5] if args[5] is not None else node.kwargs.get("step", 1)
        if not all(isinstance(v, int) or v is None for v in (start, end, step)) or not step or step < 1:
            return None
        start, end, _ = slice(start, end, step).indices(out[d])
        if _shape(src)[d] == 0:
            return self.read(base, [self.pos(out, j) for j in range(len(out))], dt)
        pos = self.pos(out, d)
        rel = _add(pos, -start)
        inside = Expr.call("logical_and", Expr.call("ge", pos, _i(start)), Expr.call("lt", pos, _i(end)))
        if step != 1:
            inside = Expr.call("logical_and", inside, Expr.call("eq", Expr.call("remainder", rel, _i(step)), _i(0)))
            rel = Expr.call("floordiv", rel, _i(step))
        idx = [self.pos(out, j) if j != d else rel for j in range(len(out))]
        written = self.read(src, idx, dt, 0, (d,))
        return Expr.call("where", inside, written, self.read(base, [self.pos(out, j) for j in range(len(out))], dt))

    def _select_scatter(self, node: torch.fx.Node, overload: str) -> Expr | None:
        """``base`` with ``src`` written into ``base.select(dim, index)``."""
        base, src, d, k = node.args[0], node.args[1], node.args[2], node.args[3]
        out, dt = _shape(node), _dtype(node)
        if not isinstance(d, int) or not isinstance(k, int):
            return None
        d = _dim(d, len(out))
        k = k + out[d] if k < 0 else k
        idx = [self.pos(out, j) for j in range(len(out)) if j != d]
        written = self.read(src, idx, dt)
        keep = self.read(base, [self.pos(out, j) for j in range(len(out))], dt)
        return Expr.call("where", Expr.call("eq", self.pos(out, d), _i(k)), written, keep)


_OPS = frozenset({"arange", "cat", "constant_pad_nd", "flip", "roll", "repeat", "index_select",
                  "gather", "index", "slice_scatter", "select_scatter"})
