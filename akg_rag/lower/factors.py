"""Scalar factors of a matrix product's operands, applied to the product instead.

Attention scales its queries and keys before the product (``softmax(q * s @ (k * s)^T)``, as
torch's own decomposition of ``scaled_dot_product_attention`` writes it): two pointwise kernels
that each write a whole operand, one of them the keys transposed, so the product then reads a
layout that is not contiguous along K and copies it once more (``DOT_MODE``). Since
``(a * x) @ (b * y) = (a * b) * (x @ y)``, the rewrite here drops each such factor from its operand
and multiplies the product by it, where the product's epilogue takes it for free; the operands
become views of the inputs (keys read K-major through the permute).

It works on the captured graph, before partitioning (like :mod:`akg_rag.lower.matvec`): an
``mm`` or ``bmm`` operand reached from a multiply or divide by a Python number through view ops
only (expand, view, reshape, permute, transpose, unsqueeze, squeeze, clone), every node of that
chain read by nothing else. ``addmm``'s bias is not scaled with the product, so it is left alone.
The result rounds differently from the reference's order (one scaling of the f32 accumulator
instead of one of each operand), well inside the verifier's tolerances.
"""

from __future__ import annotations

from typing import Any

import torch

from akg_rag.lower.fx_rewrite import meta, op_name

aten = torch.ops.aten

_PRODUCTS = {aten.mm.default, aten.bmm.default}
_VIEWS = {"expand", "view", "_unsafe_view", "reshape", "permute", "transpose", "t", "unsqueeze",
          "squeeze", "clone", "alias"}
_SCALES = {"mul", "div"}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _factor(node: torch.fx.Node) -> tuple[list[torch.fx.Node], torch.fx.Node, float] | None:
    """For a product operand: (the view chain from the scaling to the operand, the scaling node,
    the factor it multiplies by), or None when the operand is not a scaled view of something."""
    chain: list[torch.fx.Node] = []
    x = node
    while isinstance(x, torch.fx.Node) and x.op == "call_function" and len(x.users) == 1:
        name = op_name(x)
        if name in _VIEWS:
            if any(isinstance(a, torch.dtype) for a in x.args[1:]):
                return None     # view(torch.int32): other values, not a scaled view
            chain.append(x)
            x = x.args[0]
            continue
        if name in _SCALES and len(x.args) == 2 and _number(x.args[1]) and isinstance(x.args[0], torch.fx.Node) \
                and not x.kwargs:
            val, src = x.meta.get("val"), x.args[0].meta.get("val")
            if not (isinstance(val, torch.Tensor) and isinstance(src, torch.Tensor) and val.dtype == src.dtype
                    and val.is_floating_point() and val.shape == src.shape):
                return None
            c = float(x.args[1])
            if name == "div" and c == 0.0:
                return None
            return chain, x, (c if name == "mul" else 1.0 / c)
        return None
    return None


def _rerun(chain: list[torch.fx.Node], src: torch.fx.Node) -> list[torch.Tensor] | None:
    """The meta values of a view chain (innermost first in the result's order of ``chain``) when
    it starts from ``src`` instead of the scaled value; None when a view no longer applies (a
    ``view`` of what is now a strided tensor)."""
    vals: dict[torch.fx.Node, torch.Tensor] = {}
    prev = src
    for node in reversed(chain):
        args = [meta((vals.get(a) if a in vals else a.meta["val"])) if isinstance(a, torch.fx.Node) else a
                for a in node.args]
        args[0] = meta(vals[prev] if prev in vals else prev.meta["val"])
        try:
            vals[node] = node.target(*args, **node.kwargs)
        except RuntimeError:
            return None
        prev = node
    return [vals[n] for n in chain]


def scale_products(gm: torch.fx.GraphModule) -> int:
    """Move every scalar factor of an ``mm``/``bmm`` operand onto the product (module doc);
    returns how many products were rewritten."""
    g = gm.graph
    count = 0
    for node in list(g.nodes):
        if node.op != "call_function" or node.target not in _PRODUCTS:
            continue
        total, found = 1.0, []
        for operand in node.args[:2]:
            f = _factor(operand) if isinstance(operand, torch.fx.Node) else None
            vals = _rerun(f[0], f[1].args[0]) if f is not None else None
            if f is not None and vals is not None:
                found.append((f[0], f[1], vals))
                total *= f[2]
        if not found:
            continue
        for chain, scale, vals in found:
            scale.replace_all_uses_with(scale.args[0])
            g.erase_node(scale)
            for n, v in zip(chain, vals):
                n.meta["val"] = v
        val = node.target(*[meta(a.meta["val"]) for a in node.args[:2]])
        node.meta["val"] = val
        with g.inserting_after(node):
            scaled = g.call_function(aten.mul.Scalar, (node, total))
        scaled.meta["val"] = meta(val)
        node.replace_all_uses_with(scaled, delete_user_cb=lambda user: user is not scaled)
        count += 1
    if count:
        g.lint()
        gm.recompile()
    return count
