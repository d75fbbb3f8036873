"""Recognising what a traced task computes, independent of how it was written.

The simplified graph is covered by *canonical ops* in three passes:

1. composite calls: the aten ops run under one top-level library call that is a unit to a kernel
   engineer (``F.cross_entropy``, ``F.layer_norm``, ``F.scaled_dot_product_attention``, ``nn.LSTM``)
   become one op named after the call;
2. patterns written by hand: ``exp(x - max) / sum(exp(x - max))`` is ``softmax``, ``c - log(sum(exp(c)))``
   is ``log_softmax``, ``mm`` followed by a rank-1 ``add`` is ``linear``, ``x * rsqrt(mean(x*x) + eps)``
   is ``rms_norm``, ``(x - mean) / sqrt(var + eps)`` is ``layer_norm`` (:mod:`akg_rag.analysis.fused`);
3. elementwise chains fed by one variable are replayed on a probe and named from a library of
   activations (see :mod:`akg_rag.analysis.replay`); what stays unnamed keeps its ops' names.

Last, runs of canonical ops ``matmul -> softmax -> matmul`` become ``scaled_dot_product_attention``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from akg_rag.analysis.graph import Graph, Node
from akg_rag.analysis.optable import common_name, op_type_of
from akg_rag.analysis.replay import evaluate, identify

# top-level call -> (canonical name, op types). Elementwise helpers are left to the probe instead.
COMPOSITE_CALLS: dict[str, tuple[str, tuple[str, ...]]] = {
    **{n: (n, ("loss",)) for n in (
        "mse_loss l1_loss smooth_l1_loss huber_loss cross_entropy nll_loss kl_div binary_cross_entropy "
        "binary_cross_entropy_with_logits triplet_margin_loss margin_ranking_loss hinge_embedding_loss "
        "cosine_embedding_loss soft_margin_loss multi_margin_loss multilabel_margin_loss "
        "poisson_nll_loss gaussian_nll_loss triplet_margin_with_distance_loss").split()},
    **{n: (n, ("normalization",)) for n in (
        "layer_norm group_norm batch_norm instance_norm rms_norm local_response_norm").split()},
    "normalize": ("l2_normalize", ("normalization",)),
    "scaled_dot_product_attention": ("scaled_dot_product_attention", ("attention",)),
    "multi_head_attention_forward": ("multi_head_attention", ("attention",)),
    **{n: (n, ("matmul", "elementwise")) for n in ("lstm", "gru", "rnn_tanh", "rnn_relu")},
    "bilinear": ("bilinear", ("matmul",)),
    "cosine_similarity": ("cosine_similarity", ("reduction",)),
    "pairwise_distance": ("pairwise_distance", ("reduction",)),
    "cdist": ("cdist", ("reduction",)),
    "softmin": ("softmin", ("softmax",)),
    "embedding": ("embedding", ("indexing",)),
}
_MAX_REGION = 200  # pointwise ops; larger regions are described op by op


@dataclass
class CanonOp:
    """One recognised operation."""

    name: str                      # canonical name, e.g. "softmax", "linear", "gelu_tanh", "add"
    op_types: tuple[str, ...]
    inputs: list[int]              # variable value ids it reads
    outputs: list[int]
    order: int                     # trace position of its last op (orders the sequence)
    dims: tuple[int, ...] | None = None   # reduced/normalised dims, non-negative
    rank: int = 0                  # rank of its main input
    detail: str = ""               # e.g. "constant" for a binary op with a constant operand
    covered: list[Node] = field(default_factory=list)


def canonicalize(g: Graph) -> list[CanonOp]:
    """Cover the graph with canonical ops (see the module docstring), in trace order."""
    done: set[int] = set()   # id() of covered nodes
    ops: list[CanonOp] = []
    ops += _composites(g, done)
    ops += _patterns(g, done)
    ops += _elementwise(g, done)
    for node in g.nodes:
        if id(node) not in done:
            done.add(id(node))
            ops.append(_single(g, node))
    ops.sort(key=lambda op: op.order)
    from akg_rag.analysis.fused import attention

    return attention(ops, g)


def _cover(g: Graph, nodes: list[Node], name: str, types: tuple[str, ...], done: set[int],
           main: int | None = None, dims: tuple[int, ...] | None = None) -> CanonOp:
    inside = {id(n) for n in nodes}
    produced = {v for n in nodes for v in n.outputs}
    inputs: list[int] = []
    for n in nodes:
        for v in g.variable_inputs(n):
            if v not in produced and v not in inputs:
                inputs.append(v)
    outputs = [v for v in produced
               if v in g.outputs or any(id(u) not in inside for u in g.users.get(v, []))]
    done.update(inside)
    main = inputs[0] if main is None and inputs else main
    return CanonOp(name=name, op_types=types, inputs=inputs, outputs=outputs,
                   order=max(n.index for n in nodes), dims=dims,
                   rank=g.rank(main) if main is not None else 0, covered=list(nodes))


def _composites(g: Graph, done: set[int]) -> list[CanonOp]:
    groups: dict[int, list[Node]] = {}
    for node in g.nodes:
        if node.rec.call in COMPOSITE_CALLS:
            groups.setdefault(node.rec.call_id, []).append(node)
    ops = []
    for nodes in groups.values():
        name, types = COMPOSITE_CALLS[nodes[0].rec.call]
        op = _cover(g, nodes, name, types, done)
        op.dims, op.detail = _norm_attributes(name, nodes, op.rank)
        ops.append(op)
    return ops


def _norm_attributes(name: str, nodes: list[Node], rank: int) -> tuple[tuple[int, ...] | None, str]:
    """(normalised dims, mode) of a normalisation call: what a kernel for it must agree on.

    LayerNorm normalises its trailing ``len(normalized_shape)`` dims; batch norm reduces every dim
    but the channel (dim 1) in training mode and reads running statistics in inference mode.
    """
    if name == "layer_norm":
        for n in nodes:
            shape = n.param("normalized_shape")
            if isinstance(shape, (list, tuple)) and 0 < len(shape) <= rank:
                return tuple(range(rank - len(shape), rank)), ""
    if name == "batch_norm":
        for n in nodes:
            training = n.param("training")
            if "no_training" in n.name or training is False:
                return None, "inference"
            if training is True or n.name.startswith("_native_batch_norm_legit"):
                return (0, *range(2, rank)), "training"
    if name == "instance_norm":
        return tuple(range(2, rank)), ""
    return None, ""


# ---- hand-written patterns ---------------------------------------------------------------------

def _free(g: Graph, vid: int, done: set[int], name: str | tuple[str, ...]) -> Node | None:
    """The uncovered producer of ``vid`` if its name is one of ``name``."""
    node = g.node_of(vid)
    names = (name,) if isinstance(name, str) else name
    if node is None or id(node) in done or node.name not in names:
        return None
    return node


def _dims(g: Graph, node: Node, rank: int) -> tuple[int, ...]:
    dim = node.param("dim")
    if dim is None or dim == []:
        return tuple(range(rank))
    dims = dim if isinstance(dim, (list, tuple)) else [dim]
    return tuple(sorted(int(d) % rank for d in dims)) if rank else ()


def _keepdim_reduce(g: Graph, vid: int, done: set[int], names: tuple[str, ...]) -> Node | None:
    node = _free(g, vid, done, names)
    if node is None or not node.param("keepdim", False):
        return None
    if node.name in ("max", "min") and (node.param("dim") is None or g.output_index(vid) != 0):
        return None
    return node


def _stabilised(g: Graph, c: int, done: set[int]) -> tuple[int, list[Node], Node | None]:
    """Undo ``c = x - max(x, dim, keepdim)``: return (x, the nodes involved, the max node)."""
    sub = _free(g, c, done, "sub")
    if sub is not None and len(sub.inputs) == 2:
        x, m = sub.inputs
        red = _keepdim_reduce(g, m, done, ("amax", "max"))
        if red is not None and red.inputs[0] == x:
            return x, [red, sub], red
    return c, [], None


def _softmax(g: Graph, div: Node, done: set[int]) -> CanonOp | None:
    if len(div.inputs) != 2:
        return None
    e, s = div.inputs
    total = _keepdim_reduce(g, s, done, ("sum",))
    exp = _free(g, e, done, "exp")
    if total is None or exp is None or total.inputs[0] != e:
        return None
    x, extra, red = _stabilised(g, exp.inputs[0], done)
    rank = g.rank(x)
    dims = _dims(g, total, rank)
    if red is not None and _dims(g, red, rank) != dims:
        return None
    return _cover(g, extra + [exp, total, div], "softmax", ("softmax",), done, x, dims)


def _log_softmax(g: Graph, sub: Node, done: set[int]) -> CanonOp | None:
    if len(sub.inputs) != 2:
        return None
    c, lv = sub.inputs
    lse = _keepdim_reduce(g, lv, done, ("logsumexp",))
    if lse is not None and lse.inputs[0] == c:
        rank = g.rank(c)
        return _cover(g, [lse, sub], "log_softmax", ("softmax",), done, c, _dims(g, lse, rank))
    log = _free(g, lv, done, "log")
    total = _keepdim_reduce(g, log.inputs[0], done, ("sum",)) if log else None
    exp = _free(g, total.inputs[0], done, "exp") if total else None
    if exp is None or exp.inputs[0] != c:
        return None
    x, extra, red = _stabilised(g, c, done)
    rank = g.rank(x)
    dims = _dims(g, total, rank)
    if red is not None and _dims(g, red, rank) != dims:
        return None
    return _cover(g, extra + [exp, total, log, sub], "log_softmax", ("softmax",), done, x, dims)


def _linear(g: Graph, add: Node, done: set[int]) -> CanonOp | None:
    if len(add.inputs) != 2:
        return None
    for p, b in (add.inputs, add.inputs[::-1]):
        mm = _free(g, p, done, ("mm", "matmul"))
        if mm is not None and g.rank(b) == 1 and not g.is_const(b):
            return _cover(g, [mm, add], "linear", ("matmul",), done, mm.inputs[0])
    return None


def _square_of(g: Graph, vid: int, done: set[int]) -> tuple[int, Node] | None:
    node = _free(g, vid, done, ("pow", "mul"))
    if node is None:
        return None
    if node.name == "pow" and node.param("exponent") == 2:
        return node.inputs[0], node
    if node.name == "mul" and len(node.inputs) == 2 and node.inputs[0] == node.inputs[1]:
        return node.inputs[0], node
    return None


def _rms_norm(g: Graph, top: Node, done: set[int]) -> CanonOp | None:
    if len(top.inputs) != 2:
        return None
    orders = [top.inputs, top.inputs[::-1]] if top.name == "mul" else [top.inputs]
    for x, r in orders:
        hit = _rms_norm_from(g, top, x, r, done)
        if hit is not None:
            return hit
    return None


def _rms_norm_from(g: Graph, top: Node, x: int, r: int, done: set[int]) -> CanonOp | None:
    inv = _free(g, r, done, "rsqrt" if top.name == "mul" else "sqrt")
    add = _free(g, inv.inputs[0], done, "add") if inv else None
    if add is None:
        return None
    var = [v for v in add.inputs if not g.is_const(v)]
    if len(var) != 1:
        return None
    mean = _keepdim_reduce(g, var[0], done, ("mean",))
    sq = _square_of(g, mean.inputs[0], done) if mean else None
    if sq is None or sq[0] != x:
        return None
    rank = g.rank(x)
    return _cover(g, [sq[1], mean, add, inv, top], "rms_norm", ("normalization",), done, x,
                  _dims(g, mean, rank))


def _mse(g: Graph, mean: Node, done: set[int]) -> CanonOp | None:
    """``mean((a - b) ** 2)`` over every element: what ``F.mse_loss`` computes, named the same."""
    if len(mean.inputs) != 1 or mean.param("keepdim", False):
        return None
    sq = _square_of(g, mean.inputs[0], done)
    sub = _free(g, sq[0], done, "sub") if sq else None
    if sub is None or len([v for v in sub.inputs if not g.is_const(v)]) != 2:
        return None
    rank = g.rank(sq[0])
    if _dims(g, mean, rank) != tuple(range(rank)):
        return None
    return _cover(g, [sub, sq[1], mean], "mse_loss", ("loss",), done, sub.inputs[0])


def _patterns(g: Graph, done: set[int]) -> list[CanonOp]:
    from akg_rag.analysis.fused import layer_norm, vector_norm

    ops: list[CanonOp] = []
    for node in list(g.nodes):
        if id(node) in done:
            continue
        hit = None
        if node.name == "div":
            hit = _softmax(g, node, done) or layer_norm(g, node, done) or _rms_norm(g, node, done)
        elif node.name == "sub":
            hit = _log_softmax(g, node, done)
        elif node.name == "mul":
            hit = layer_norm(g, node, done) or _rms_norm(g, node, done)
        elif node.name == "add":
            hit = _linear(g, node, done)
        elif node.name == "mean":
            hit = _mse(g, node, done)
        elif node.name == "sqrt":
            hit = vector_norm(g, node, done)
        if hit is not None:
            ops.append(hit)
    return ops


# ---- elementwise chains -------------------------------------------------------------------------

def _elementwise(g: Graph, done: set[int]) -> list[CanonOp]:
    """Group uncovered pointwise nodes by the single variable they derive from, then name them."""
    root: dict[int, int] = {}            # value id -> the variable its region derives from
    regions: dict[int, list[Node]] = {}  # root value -> member nodes in trace order
    for node in g.nodes:
        if id(node) in done or not node.pointwise:
            continue
        roots = {root.get(v, v) for v in g.variable_inputs(node)}
        if len(roots) != 1:
            continue  # combines two independent variables: described as a single op
        r = roots.pop()
        regions.setdefault(r, []).append(node)
        for out in node.outputs:
            root[out] = r
    ops: list[CanonOp] = []
    for r, members in regions.items():
        ops += _name_region(g, r, members, done)
    return ops


def _name_region(g: Graph, r: int, members: list[Node], done: set[int]) -> list[CanonOp]:
    inside = {id(n) for n in members}
    exits = [v for n in members for v in n.outputs
             if v in g.outputs or any(id(u) not in inside for u in g.users.get(v, []))]
    if len(exits) != 1 or len(members) > _MAX_REGION:
        return []  # left to the single-op pass
    chain = [r] + _dominators(g, r, exits[0], members) + [exits[0]]
    ops: list[CanonOp] = []
    i = 0
    while i < len(chain) - 1:
        for j in range(len(chain) - 1, i, -1):
            between = _between(g, chain[i], chain[j], members)
            name = identify(evaluate(g, between, chain[i], chain[j]))
            if name is not None:
                ops.append(_cover(g, between, name, ("elementwise",), done, chain[i]))
                i = j
                break
        else:
            for node in _between(g, chain[i], chain[i + 1], members):
                done.add(id(node))
                ops.append(_single(g, node))
            i += 1
    return ops


def _between(g: Graph, a: int, b: int, members: list[Node]) -> list[Node]:
    """Members on some path from value ``a`` to value ``b``, in trace order."""
    reach: set[int] = {a}
    forward: list[Node] = []
    for n in members:
        if any(v in reach for v in n.inputs):
            forward.append(n)
            reach.update(n.outputs)
    need: set[int] = {b}
    keep: list[Node] = []
    for n in reversed(forward):
        if any(o in need for o in n.outputs):
            keep.append(n)
            need.update(n.inputs)
    return list(reversed(keep))


def _dominators(g: Graph, r: int, exit_: int, members: list[Node]) -> list[int]:
    """Values every path from ``r`` to ``exit_`` passes through, in trace order."""
    values = [v for n in members for v in n.outputs if v != exit_]
    doms = []
    for d in values:
        reach = {r}
        for n in members:
            if d in n.outputs:
                continue
            if any(v in reach for v in n.inputs if v != d):
                reach.update(n.outputs)
        if exit_ not in reach:
            doms.append(d)
    return doms


# ---- single ops -------------------------------------------------------------------------------

def _single(g: Graph, node: Node) -> CanonOp:
    """One node on its own: the table's name and type, refined for convolutions and matmuls."""
    name = common_name(node.name)
    types: tuple[str, ...] = (op_type_of(node.name),)
    variables = g.variable_inputs(node)
    main = variables[0] if variables else (node.inputs[0] if node.inputs else None)
    rank = g.rank(main) if main is not None else 0
    dims = None
    detail = ""
    if node.name in ("convolution", "_convolution"):
        name = _conv_name(g, node)
    elif types[0] == "pooling" and re.fullmatch(r"(adaptive_)?(max|avg|lp)_pool[123]d", node.rec.call or ""):
        name = node.rec.call  # torch runs 1-D pooling as 2-D pooling on an unsqueezed input
    elif node.name == "addmm":
        name = "linear"
    elif node.name in ("bmm", "baddbmm"):
        # an einsum or matmul of 2-D operands runs as a bmm over views: it is a plain matmul
        name = "matmul" if rank == 2 and all(g.rank(v) == 2 for v in variables) else "bmm"
    elif node.name in ("max", "min") and len(node.outputs) == 2 and _only_indices_used(g, node):
        name = f"arg{node.name}"  # torch.max(x, dim).indices is an argmax
        dims = _dims(g, node, rank)
    elif types[0] in ("reduction", "softmax", "scan", "normalization") and node.param("dim") is not None:
        dims = _dims(g, node, rank)
    elif types[0] in ("reduction",):
        dims = tuple(range(rank))
    if types == ("elementwise",) and len(node.inputs) > len(variables):
        detail = "constant"
    elif types == ("elementwise",) and any(isinstance(a, (int, float)) and not isinstance(a, bool)
                                           for a in node.rec.args[1:]):
        detail = "constant"
    return CanonOp(name=name, op_types=types, inputs=variables, outputs=list(node.outputs),
                   order=node.index, dims=dims, rank=rank, detail=detail, covered=[node])


def _only_indices_used(g: Graph, node: Node) -> bool:
    """True when a (values, indices) op's values output feeds nothing and is not returned."""
    values = node.outputs[0]
    return values not in g.outputs and not g.users.get(values)


def _conv_name(g: Graph, node: Node) -> str:
    weight = g.spec(node.inputs[1])
    spatial = len(weight.shape) - 2
    transposed = bool(node.param("transposed", False))
    groups = int(node.param("groups", 1) or 1)
    in_channels = g.spec(node.inputs[0]).shape[1] if g.rank(node.inputs[0]) > 1 else 0
    kind = "conv_transpose" if transposed else "conv"
    prefix = "depthwise_" if groups > 1 and groups == in_channels else ""
    return f"{prefix}{kind}{spatial}d"
