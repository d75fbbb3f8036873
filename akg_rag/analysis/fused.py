"""Recognising two multi-step computations written by hand: layer norm and attention.

* ``(x - mean(x)) / sqrt(var(x) + eps)`` (or ``* rsqrt(...)``), the variance taken by ``var`` or as
  ``mean((x - mean(x)) ** 2)``, over the same dims, optionally followed by ``* weight + bias``: the
  computation ``F.layer_norm`` names, so it gets the same canonical op ``layer_norm``. Without this
  the normalised difference reads as an RMS norm of ``x - mean`` and retrieves the wrong family;
* ``matmul(softmax(matmul(q, k^T) [* or / constant] [+ mask]), v)``: ``scaled_dot_product_attention``,
  found over the canonical ops (the softmax may itself be a library call or a hand-written one).

* ``sqrt(sum(x * x, dims))``: the Euclidean norm ``torch.linalg.vector_norm`` computes, named ``norm``
  as that op is.

All are called from :mod:`akg_rag.analysis.canon`.
"""

from __future__ import annotations

from akg_rag.analysis.canon import CanonOp, _cover, _dims, _free, _keepdim_reduce, _square_of
from akg_rag.analysis.graph import Graph, Node

MATMULS = ("bmm", "matmul", "mm")
SCALES = ("div", "mul")


def layer_norm(g: Graph, top: Node, done: set[int]) -> CanonOp | None:
    """``top`` (a div or mul) as the end of a hand-written layer norm, with its affine tail."""
    if len(top.inputs) != 2:
        return None
    orders = [top.inputs, top.inputs[::-1]] if top.name == "mul" else [top.inputs]
    for c, r in orders:
        hit = _normalised(g, top, c, r, done)
        if hit is not None:
            return hit
    return None


def _normalised(g: Graph, top: Node, c: int, r: int, done: set[int]) -> CanonOp | None:
    sub = _free(g, c, done, "sub")
    if sub is None or len(sub.inputs) != 2:
        return None
    x, mu = sub.inputs
    mean = _keepdim_reduce(g, mu, done, ("mean",))
    if mean is None or mean.inputs[0] != x:
        return None
    inv = _free(g, r, done, "rsqrt" if top.name == "mul" else "sqrt")
    add = _free(g, inv.inputs[0], done, "add") if inv else None
    if add is None:
        return None
    var_in = [v for v in add.inputs if not g.is_const(v)]
    if len(var_in) != 1:
        return None
    nodes = [mean, sub]
    var = _keepdim_reduce(g, var_in[0], done, ("var",))
    if var is not None and var.inputs[0] == x:
        nodes.append(var)
    else:
        var = _keepdim_reduce(g, var_in[0], done, ("mean",))
        sq = _square_of(g, var.inputs[0], done) if var else None
        if sq is None or sq[0] != c:
            return None
        nodes += [sq[1], var]
    rank = g.rank(x)
    dims = _dims(g, mean, rank)
    if _dims(g, var, rank) != dims:
        return None
    nodes += [add, inv, top]
    nodes += _affine(g, top, done)
    return _cover(g, nodes, "layer_norm", ("normalization",), done, x, dims)


def vector_norm(g: Graph, root: Node, done: set[int]) -> CanonOp | None:
    """``root`` (a sqrt) over a sum of squares: the vector 2-norm over the summed dims."""
    total = _free(g, root.inputs[0], done, "sum") if len(root.inputs) == 1 else None
    sq = _square_of(g, total.inputs[0], done) if total else None
    if sq is None:
        return None
    rank = g.rank(sq[0])
    return _cover(g, [sq[1], total, root], "norm", ("reduction",), done, sq[0], _dims(g, total, rank))


def _affine(g: Graph, top: Node, done: set[int]) -> list[Node]:
    """The ``* weight`` and ``+ bias`` right after the normalisation, when nothing else reads it."""
    out: list[Node] = []
    value = top.outputs[0]
    for name in ("mul", "add"):
        users = g.users.get(value, [])
        if len(users) != 1 or value in g.outputs:
            break
        user = users[0]
        others = [v for v in user.inputs if v != value]
        if id(user) in done or user.name != name or len(others) != 1 or g.is_const(others[0]):
            break
        if g.rank(others[0]) >= g.rank(value):
            break  # a full-size operand is another input, not a per-feature parameter
        out.append(user)
        value = user.outputs[0]
    return out


def attention(ops: list[CanonOp], g: Graph) -> list[CanonOp]:
    """Merge each ``matmul -> [scale] -> [mask] -> softmax -> matmul`` run of canonical ops."""
    producer = {v: op for op in ops for v in op.outputs}
    merged: list[CanonOp] = []
    gone: set[int] = set()
    for second in ops:
        if second.name not in MATMULS or len(second.inputs) != 2 or id(second) in gone:
            continue
        soft = producer.get(second.inputs[0])
        if soft is None or soft.name != "softmax" or len(soft.inputs) != 1:
            continue
        chain = [soft]
        cur = producer.get(soft.inputs[0])
        while cur is not None and cur.name in SCALES + ("add",) and len(cur.inputs) in (1, 2) and len(chain) < 4:
            chain.append(cur)
            cur = producer.get(cur.inputs[0])
        if cur is None or cur.name not in MATMULS or len(cur.inputs) != 2:
            continue
        first = cur
        parts = [first, *reversed(chain), second]
        if any(id(p) in gone for p in parts):
            continue
        gone.update(id(p) for p in parts)
        q, k = first.inputs
        merged.append(CanonOp(
            name="scaled_dot_product_attention", op_types=("attention",), inputs=[q, k, second.inputs[1]],
            outputs=list(second.outputs), order=second.order, rank=g.rank(q),
            covered=[n for p in parts for n in p.covered]))
    if not merged:
        return ops
    return sorted([op for op in ops if id(op) not in gone] + merged, key=lambda op: op.order)
