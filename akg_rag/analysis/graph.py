"""The dataflow graph of a trace, simplified for recognising what a task computes.

Views, copies and dtype casts become aliases of their input; identical ops on identical values are
merged (common-subexpression elimination, so ``exp(x) / exp(x).sum()`` has one ``exp``); tensors
built from scalars (``zeros_like``, ``full``, ``torch.tensor(0.5)``) become constants whose value is
known where it is uniform or small; ops that do not reach an output are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from akg_rag.analysis.optable import EXTRA_POINTWISE, base_name, is_factory, is_view
from akg_rag.analysis.record import TensorSpec
from akg_rag.analysis.trace import OpRecord, Ref, Trace

# Factories whose result holds a single repeated value: their constant is kept as a 0-dim tensor,
# which broadcasts like the original inside pointwise ops.
_UNIFORM_FILL: dict[str, float | None] = {
    "zeros": 0.0, "zeros_like": 0.0, "new_zeros": 0.0, "zero": 0.0,
    "ones": 1.0, "ones_like": 1.0, "new_ones": 1.0,
    "full": None, "full_like": None, "new_full": None, "fill": None, "scalar_tensor": None,
}
_FILL_PARAM = {"full": "fill_value", "full_like": "fill_value", "new_full": "fill_value",
               "fill": "value", "scalar_tensor": "s"}


@dataclass(eq=False)
class Node:
    """One computing op of the simplified graph."""

    rec: OpRecord
    name: str              # in-place suffix stripped: "relu_" -> "relu"
    inputs: list[int]      # resolved value ids of tensor arguments, in order
    outputs: list[int]
    pointwise: bool

    @property
    def index(self) -> int:
        """Position of the op in the trace (a topological order)."""
        return self.rec.index

    def param(self, key: str, default: Any = None) -> Any:
        """A schema argument of the op, with tensor references resolved by the caller if needed."""
        return self.rec.params.get(key, default)


@dataclass
class Graph:
    """Aliases, nodes, producers and users of a trace after simplification."""

    trace: Trace
    alias: dict[int, int] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)
    producer: dict[int, tuple[Node, int]] = field(default_factory=dict)
    users: dict[int, list[Node]] = field(default_factory=dict)
    consts: dict[int, torch.Tensor | None] = field(default_factory=dict)  # None: constant, value unknown
    outputs: list[int] = field(default_factory=list)

    def resolve(self, vid: int) -> int:
        """Follow aliases to the value that really holds the data."""
        while vid in self.alias:
            vid = self.alias[vid]
        return vid

    def spec(self, vid: int) -> TensorSpec:
        """Spec of a value."""
        return self.trace.specs[vid]

    def rank(self, vid: int) -> int:
        """Rank of a value."""
        return len(self.trace.specs[vid].shape)

    def is_const(self, vid: int) -> bool:
        """True for values that do not depend on any input or parameter."""
        return vid in self.consts

    def node_of(self, vid: int) -> Node | None:
        """The node producing ``vid`` (None for leaves and constants)."""
        hit = self.producer.get(vid)
        return hit[0] if hit else None

    def output_index(self, vid: int) -> int:
        """Which output of its producer ``vid`` is (0 for leaves)."""
        hit = self.producer.get(vid)
        return hit[1] if hit else 0

    def variable_inputs(self, node: Node) -> list[int]:
        """Inputs of ``node`` that are not constants, deduplicated in order."""
        seen: list[int] = []
        for v in node.inputs:
            if not self.is_const(v) and v not in seen:
                seen.append(v)
        return seen

    def arg(self, value: Any) -> Any:
        """Resolve a recorded argument: ``Ref`` -> value id after aliasing."""
        return self.resolve(value.vid) if isinstance(value, Ref) else value


def build_graph(trace: Trace) -> Graph:
    """Simplify a trace into a :class:`Graph` (see the module docstring)."""
    g = Graph(trace=trace)
    for vid, kind in trace.leaf_kind.items():
        if kind == "const":
            g.consts[vid] = trace.constants.get(vid)
    seen: dict[tuple, Node] = {}
    for rec in trace.records:
        name = base_name(rec.name)
        ins = [g.resolve(v) for v in rec.inputs]
        if is_view(rec.name) or is_view(name):
            src = ins[1] if name == "copy" and len(ins) > 1 else (ins[0] if ins else None)
            for out in rec.outputs:
                if src is None:
                    g.consts[out] = None
                else:
                    g.alias[out] = src
            continue
        if is_factory(rec.name):
            for out in rec.outputs:
                if "nondeterministic_seeded" in rec.tags or name.startswith(("rand", "normal", "uniform", "bernoulli")):
                    continue  # random tensors behave like fresh inputs
                g.consts[out] = _uniform_value(name, rec)
            continue
        key = _cse_key(rec, ins)
        if key is not None and key in seen:
            for out, prev in zip(rec.outputs, seen[key].outputs):
                g.alias[out] = prev
            continue
        node = Node(
            rec=rec,
            name=name,
            inputs=ins,
            outputs=list(rec.outputs),
            pointwise="pointwise" in rec.tags or name in EXTRA_POINTWISE,
        )
        if key is not None:
            seen[key] = node
        if node.pointwise and ins and all(g.is_const(v) for v in ins):
            _fold_constant(g, node)
            continue
        g.nodes.append(node)
        for k, out in enumerate(node.outputs):
            g.producer[out] = (node, k)
        for v in set(ins):
            g.users.setdefault(v, []).append(node)
    g.outputs = [g.resolve(v) for v in trace.output_ids]
    _drop_dead(g)
    return g


def _uniform_value(name: str, rec: OpRecord) -> torch.Tensor | None:
    """The fill value of a uniform factory as a 0-dim float64 tensor, else None."""
    if name not in _UNIFORM_FILL:
        return None
    value = _UNIFORM_FILL[name]
    if value is None:
        value = rec.params.get(_FILL_PARAM.get(name, ""), None)
    if isinstance(value, Ref) or not isinstance(value, (int, float, bool)):
        return None
    return torch.tensor(float(value), dtype=torch.float64)


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a recorded argument."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (int, float, bool, str, type(None), Ref)):
        return value
    return repr(value)


def _cse_key(rec: OpRecord, ins: list[int]) -> tuple | None:
    """Key under which two ops compute the same value; None for ops that must stay distinct."""
    if "nondeterministic_seeded" in rec.tags or "inplace" in rec.tags or rec.name.endswith("_"):
        return None
    others = {k: v for k, v in rec.params.items() if not isinstance(v, Ref)}
    return (str(rec.func), tuple(ins), _freeze(others))


def _fold_constant(g: Graph, node: Node) -> None:
    """Evaluate a pointwise op whose inputs are all constants (or mark it constant, value unknown)."""
    from akg_rag.analysis.replay import run_node

    env = {v: g.consts[v] for v in node.inputs}
    value = None
    if all(t is not None for t in env.values()):
        try:
            out = run_node(g, node, env)
            value = out[0] if out else None
        except Exception:  # noqa: BLE001 - an op we cannot replay is simply a constant of unknown value
            value = None
    for k, out in enumerate(node.outputs):
        g.consts[out] = value if k == 0 else None


def _drop_dead(g: Graph) -> None:
    """Remove nodes whose results never reach an output of ``forward``."""
    live: set[int] = set(g.outputs)
    keep: list[Node] = []
    for node in reversed(g.nodes):
        if any(o in live for o in node.outputs):
            keep.append(node)
            live.update(node.inputs)
    keep.reverse()
    kept = set(map(id, keep))
    g.nodes = keep
    g.producer = {v: p for v, p in g.producer.items() if id(p[0]) in kept}
    g.users = {v: [n for n in us if id(n) in kept] for v, us in g.users.items()}
