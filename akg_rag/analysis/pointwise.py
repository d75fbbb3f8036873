"""The expression of a purely pointwise task, constants included, for the deterministic designer.

When every op of the simplified graph is pointwise, the task has one output and every leaf is a
task input or a scalar constant, the output is one expression tree. It is returned as nested
JSON-ready dicts in the shape of ``akg_rag.lower.region.Expr``: ``{"op": "mul", "args": [...]}``,
``{"op": "input", "ref": "x1"}`` (the task's input 1; input 0 is ``"x"``), ``{"op": "const",
"value": 1.702}``. Ops outside the table below give None (the designer then uses its templates).
"""

from __future__ import annotations

from typing import Any

from akg_rag.analysis.graph import Graph, Node
from akg_rag.analysis.trace import Ref

J = dict[str, Any]

_DIRECT = {"neg", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "abs", "erf", "log1p", "expm1",
           "reciprocal", "floor", "ceil", "sin", "cos", "sign", "trunc", "exp2", "log2"}
_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min",
           "pow": "pow", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le", "eq": "eq", "ne": "ne",
           "fmod": "fmod", "remainder": "remainder", "atan2": "atan2"}


def _c(value: float | int | bool) -> J:
    return {"op": "const", "value": value}


def _f(op: str, *args: J) -> J:
    return {"op": op, "args": list(args)}


class _Builder:
    def __init__(self, g: Graph) -> None:
        self.g = g
        self.inputs = {vid: ("x" if i == 0 else f"x{i}") for i, vid in enumerate(g.trace.input_ids)}

    def value(self, v: Any) -> J | None:
        if isinstance(v, Ref):
            return self.tensor(v.vid)
        if isinstance(v, (bool, int, float)):
            return _c(v)
        return None

    def tensor(self, vid: int) -> J | None:
        vid = self.g.resolve(vid)
        if vid in self.inputs:
            return {"op": "input", "ref": self.inputs[vid]}
        const = self.g.consts.get(vid)
        if const is not None and const.numel() == 1:  # a captured scalar tensor, e.g. torch.tensor(0.0)
            return _c(const.item())
        prod = self.g.producer.get(vid)
        if prod is None:
            return None  # a parameter, buffer or captured constant tensor: not a plain expression
        node, _ = prod
        return self.node(node)

    def node(self, n: Node) -> J | None:
        p = {k: self.value(v) if isinstance(v, (Ref, bool, int, float)) else v for k, v in n.rec.params.items()}
        x = p.get("self") if "self" in p else p.get("input")
        name = n.name
        if isinstance(x, dict) is False and name not in ("where",):
            return None
        if name in _DIRECT:
            return _f(name, x)
        if name in ("add", "sub", "rsub") and "other" in p:
            other = p["other"]
            if other is None:
                return None
            alpha = p.get("alpha")
            if isinstance(alpha, dict) and alpha.get("value") not in (1, None):
                other = _f("mul", other, alpha)
            if name == "rsub":
                return _f("sub", other, x)
            return _f(name, x, other)
        if name in _BINARY:
            other = p.get("other", p.get("exponent"))
            return None if other is None else _f(_BINARY[name], x, other)
        if name == "relu":
            return _f("max", x, _c(0.0))
        if name == "silu":
            return _f("mul", x, _f("sigmoid", x))
        if name == "leaky_relu":
            slope = p.get("negative_slope") or _c(0.01)
            return _f("where", _f("gt", x, _c(0.0)), x, _f("mul", x, slope))
        if name == "gelu":
            if n.rec.params.get("approximate", "none") == "tanh":
                inner = _f("mul", _c(0.7978845608028654), _f("add", x, _f("mul", _c(0.044715), _f("mul", x, _f("mul", x, x)))))
                return _f("mul", _f("mul", _c(0.5), x), _f("add", _c(1.0), _f("tanh", inner)))
            return _f("mul", _f("mul", _c(0.5), x), _f("add", _c(1.0), _f("erf", _f("mul", x, _c(0.7071067811865476)))))
        if name in ("clamp", "hardtanh", "clamp_min", "clamp_max"):
            lo = p.get("min", p.get("min_val")) if name != "clamp_max" else None
            hi = p.get("max", p.get("max_val")) if name != "clamp_min" else None
            out = x
            if isinstance(lo, dict):
                out = _f("max", out, lo)
            if isinstance(hi, dict):
                out = _f("min", out, hi)
            return out
        if name == "where":
            cond, a, b = p.get("condition"), p.get("self"), p.get("other")
            if all(isinstance(v, dict) for v in (cond, a, b)):
                return _f("where", cond, a, b)  # type: ignore[arg-type]
        return None


def pointwise_expr(g: Graph) -> J | None:
    """The task's output as one expression (see the module docstring), or None."""
    if len(g.trace.output_ids) != 1 or not g.nodes or not all(n.pointwise for n in g.nodes):
        return None
    expr = _Builder(g).tensor(g.trace.output_ids[0])
    return expr if expr is not None and _complete(expr) else None


def _complete(e: Any) -> bool:
    if not isinstance(e, dict):
        return False
    return all(_complete(a) for a in e.get("args", []))
