"""Helpers of the rewrites that run on the captured aten graph before partitioning
(:mod:`akg_rag.lower.matvec`, :mod:`akg_rag.lower.factors`, :mod:`akg_rag.lower.scan_prefix`):
an op's short name, a node's meta value, new nodes with their meta values, and the swap of a
rewritten node for its replacement."""

from __future__ import annotations

from typing import Any

import torch


def op_name(node: Any) -> str:
    """``aten::cumsum`` -> ``cumsum``; "" for anything that is not an op call."""
    schema = getattr(getattr(node, "target", None), "_schema", None)
    return schema.name.split("::")[-1] if schema is not None else ""


def val(node: Any) -> Any:
    """A node's meta value (None for a literal)."""
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def meta(v: torch.Tensor) -> torch.Tensor:
    """A plain meta tensor like ``v`` (the capture's values belong to its own fake mode)."""
    return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")


def emit(g: torch.fx.Graph, op: Any, *args: Any) -> torch.fx.Node:
    """A node of ``op(*args)`` (arguments may be lists of nodes) with its meta value computed on
    meta tensors."""
    def on_meta(a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            return meta(val(a))
        return [on_meta(x) for x in a] if isinstance(a, (list, tuple)) else a

    node = g.call_function(op, args)
    node.meta["val"] = op(*[on_meta(a) for a in args])
    return node


def replace(g: torch.fx.Graph, node: torch.fx.Node, new: torch.fx.Node, what: str) -> None:
    """Every use of ``node`` reads ``new`` instead, and ``node`` goes; a replacement of another
    shape or dtype is a bug of the rewrite ``what`` (AssertionError)."""
    old = val(node)
    if tuple(val(new).shape) != tuple(old.shape) or val(new).dtype != old.dtype:
        raise AssertionError(f"{what} rewrite of {node.format_node()} gave {tuple(val(new).shape)} {val(new).dtype}")
    node.replace_all_uses_with(new)
    g.erase_node(node)
