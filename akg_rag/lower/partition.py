"""Partition: a captured aten graph cut into regions (one kernel each), host views and fallbacks.

The walk is one pass in graph order. Every node gets a *symbolic* value (``_Sym``: an ``Expr``
over program values, not yet stored anywhere) or a program ``Value`` (a tensor that exists at run
time). Pointwise ops only build bigger ``Expr`` trees; a tree is *materialised* -- becomes an
output of a region -- only where something needs a tensor: a view, a core op's operand, a fallback,
forward's result, or a reduction over another domain.

Open regions (``_Group``) still take outputs. A reduction joins an open reduction region of the
same domain and dims (softmax's max and sum, layer norm's mean and variance); a pointwise tree that
reads a region's core result (``acc``) or reductions (``reduced``) becomes that region's epilogue.
A region is closed -- appended to the step list -- as soon as something outside it reads one of its
outputs; at that moment every symbolic value that still depends on it and has unvisited users is
materialised into it, so nothing can refer to a closed region later. This keeps the step list in a
valid order without a separate scheduling pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_map

from akg_rag.lower.capture import Captured
from akg_rag.errors import ConfigError
from akg_rag.lower.cores import CoreBuilder
from akg_rag.lower.library import CORE_MODES, LibraryCores
from akg_rag.lower.dataflow import drop_dead_writes
from akg_rag.lower.indexing import IndexBuilder, positional, remap, unit_dim_map
from akg_rag.lower.pointwise import pointwise_expr
from akg_rag.lower.region import (Expr, FallbackStep, KernelStep, Output, PointwiseRegion, Program,
                                  ReductionRegion, Region, Step, Value, ViewStep)
from akg_rag.lower.views import (IDENTITY_OPS, VIEW_OPS, is_broadcast_of, split_calls,
                                 strip_leading_ones, view_calls)

# A symbolic tree with several users is stored once it grows past this many nodes (recomputing it
# in every consumer would cost more than the extra read); one with a single user past the second.
_SHARED_EXPR_LIMIT = 24
_EXPR_LIMIT = 256
_FACTORIES = {"full": 1, "zeros": None, "ones": None, "scalar_tensor": 0, "full_like": 1,
              "zeros_like": None, "ones_like": None, "empty": None, "empty_like": None,
              "new_zeros": None, "new_ones": None, "new_full": 2, "new_empty": None, "fill": 1,
              "empty_strided": None, "empty_permuted": None, "zero": None}
_FILL = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1, "new_ones": 1,
         "empty": 0, "empty_like": 0, "new_empty": 0, "empty_strided": 0, "empty_permuted": 0, "zero": 0}


@dataclass(eq=False)
class _Group:
    """An open region: it may still take outputs (and reductions, for a reduction region)."""

    region: Region
    domain: tuple[int, ...]                 # the full-domain shape
    dims: tuple[int, ...] = ()              # reduced dims (reduction regions)
    closed: bool = False
    members: list[torch.fx.Node] = field(default_factory=list)  # nodes whose _Sym reads it
    exprs: dict[str, Expr] = field(default_factory=dict)        # output name -> its expr

    @property
    def keepdim_shape(self) -> tuple[int, ...]:
        return tuple(1 if i in self.dims else s for i, s in enumerate(self.domain))

    @property
    def dropped_shape(self) -> tuple[int, ...]:
        return tuple(s for i, s in enumerate(self.domain) if i not in self.dims)


@dataclass
class _Sym:
    """A value not stored yet: ``expr`` evaluated over ``shape``.

    Without a group, the expr's inputs broadcast right-aligned to ``shape``. With a group, the
    inputs are aligned to the group's full domain, and ``domain`` says whether the value lives on
    the full domain or on the reduced one (then ``shape`` is the keepdim or the dropped shape)."""

    expr: Expr
    shape: tuple[int, ...]
    dtype: str
    group: _Group | None = None
    domain: str = "full"


def _is_numel(x: Any, g: _Group) -> bool:
    """True when ``x`` is a number equal to the count of g's reduced elements."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    n = 1
    for d in g.dims:
        n *= g.domain[d]
    return float(x) == float(n) and n > 1


def _size(e: Expr) -> int:
    return 1 + sum(_size(a) for a in e.args)


def _shape(node: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in node.meta["val"].shape)


def _dtype(node: Any) -> str:
    return str(node.meta["val"].dtype).removeprefix("torch.")


def op_name(target: Any) -> tuple[str, str]:
    """(name, overload) of an aten/prims OpOverload: ``aten.add.Tensor`` -> ("add", "Tensor")."""
    schema = getattr(target, "_schema", None)
    if schema is None:
        return getattr(target, "__name__", str(target)), ""
    return schema.name.split("::")[-1], target._overloadname


class Partitioner:
    """One pass over a captured graph; :func:`partition` is the entry point."""

    def __init__(self, cap: Captured, cores: str = "generated") -> None:
        if cores not in CORE_MODES:
            raise ConfigError(f"unknown core mode {cores!r}; allowed: {', '.join(CORE_MODES)}")
        self.cap = cap
        self.env: dict[torch.fx.Node, Any] = {}
        self.steps: list[Step] = []
        self.values: dict[str, Value] = {}
        self.producer: dict[str, _Group] = {}
        self.open: list[_Group] = []
        self.done: set[torch.fx.Node] = set()
        self.kernels = 0
        self.constants: dict[str, object] = {}
        self.params: dict[str, Value] = {}
        self.inputs: list[Value] = []
        self.cores = CoreBuilder(self)
        # library mode: GEMM and conv cores stay vendor-library calls (akg_rag.lower.library)
        self.library = LibraryCores(self) if cores == "library" else None
        self.indexing = IndexBuilder(self)

    # -- names and values -----------------------------------------------------------------------
    def new_value(self, base: str, shape: tuple[int, ...], dtype: str) -> Value:
        """A fresh program value with a unique identifier name."""
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "v"
        if name[0].isdigit():
            name = "v" + name
        stem, k = name, 1
        while name in self.values:
            name = f"{stem}_{k}"
            k += 1
        v = Value(name, tuple(shape), dtype)
        self.values[name] = v
        return v

    def as_sym(self, node: Any) -> _Sym:
        """The symbolic form of a node's value (a stored value reads as an input leaf)."""
        x = self.env[node]
        if isinstance(x, Value):
            return _Sym(Expr.input(x.name), x.shape, x.dtype)
        assert isinstance(x, _Sym), f"{node} has no single value"
        return x

    def value_of(self, node: Any) -> Value:
        """The node's value as a stored tensor, materialising it into a region if needed."""
        x = self.env[node]
        if isinstance(x, Value):
            return x
        v = self.materialize(x, "t_" + node.name)
        self.env[node] = v
        return v

    def use(self, v: Value) -> Value:
        """``v`` is about to be read outside its region: close the region that writes it."""
        g = self.producer.get(v.name)
        if g is not None and not g.closed:
            self.close(g)
        return v

    # -- regions --------------------------------------------------------------------------------
    def materialize(self, sym: _Sym, base: str) -> Value:
        """Store ``sym``: an output of its group, or of an open pointwise region of its shape."""
        e = sym.expr
        if sym.group is None and e.op == "input":
            src = self.values[e.ref]  # type: ignore[index]
            if src.shape == sym.shape and src.dtype == sym.dtype:
                return src
        g = sym.group
        if g is None:
            g = next((o for o in self.open if isinstance(o.region, PointwiseRegion)
                      and o.domain == sym.shape), None)
            if g is None:
                g = self.open_group(PointwiseRegion(inputs=[], outputs=[], shape=sym.shape), sym.shape)
        assert not g.closed, "a symbolic value outlived its closed region"
        v = self.new_value(base, sym.shape, sym.dtype)
        expr = self.bind(g, e)
        g.region.outputs.append(Output(v, expr, domain=sym.domain if sym.group else "full"))
        g.exprs[v.name] = expr
        self.producer[v.name] = g
        return v

    def open_group(self, region: Region, domain: tuple[int, ...], dims: tuple[int, ...] = ()) -> _Group:
        """Start a new open region."""
        g = _Group(region, tuple(domain), tuple(dims))
        self.open.append(g)
        return g

    def bind(self, g: _Group, e: Expr) -> Expr:
        """Resolve ``e``'s input leaves for region ``g``: g's own outputs are inlined, other
        regions' outputs close those regions, and every leaf becomes one of g's inputs."""
        if e.op == "input":
            name = e.ref
            if self.producer.get(name) is g and not g.closed:  # type: ignore[arg-type]
                return g.exprs[name]  # type: ignore[index]
            self.use(self.values[name])  # type: ignore[index]
            inputs = g.region.inputs
            if all(v.name != name for v in inputs):
                inputs.append(self.values[name])  # type: ignore[index]
            return e
        if e.op == "index" and int(e.value) < 0:  # type: ignore[arg-type]
            return Expr.index(int(e.value) + len(g.domain))  # type: ignore[arg-type]
        if e.op == "gather":  # reads any element: the tensor must be complete, never inlined
            name = e.ref
            assert self.producer.get(name) is not g or g.closed, "a gather of its own region's output"  # type: ignore[arg-type]
            self.use(self.values[name])  # type: ignore[index]
            if all(v.name != name for v in g.region.inputs):
                g.region.inputs.append(self.values[name])  # type: ignore[index]
        if not e.args:
            return e
        return Expr(e.op, tuple(self.bind(g, a) for a in e.args), e.ref, e.value, e.dtype)

    def close(self, g: _Group) -> None:
        """Seal ``g`` and append its kernel: first store what still depends on it."""
        if g.closed:
            return
        for node in list(g.members):
            x = self.env.get(node)
            if isinstance(x, _Sym) and x.group is g and any(u not in self.done for u in node.users):
                self.value_of(node)
        g.closed = True
        self.open.remove(g)
        if g.region.outputs:
            self.steps.append(KernelStep(region=g.region, name=f"k{self.kernels}"))
            self.kernels += 1

    # -- the walk -------------------------------------------------------------------------------
    def run(self) -> Program:
        """Partition the whole graph."""
        cap = self.cap
        holders = cap.placeholders
        for i, node in enumerate(holders):
            if i < len(cap.param_names):
                name = cap.param_names[i]
                v = self.new_value("w_" + name, _shape(node), _dtype(node))
                self.params[name] = v
            else:
                v = self.new_value(f"in{i - len(cap.param_names)}", _shape(node), _dtype(node))
                self.inputs.append(v)
            self.env[node] = v
            self.done.add(node)
        self.cores.find_reverse_scans(cap.gm.graph)
        outputs: list[Value] = []
        writes: list[tuple[str, Value]] = []
        for node in cap.gm.graph.nodes:
            if node.op == "get_attr":
                self.visit_constant(node)
            elif node.op == "call_function":
                self.visit(node)
                x = self.env.get(node)
                if isinstance(x, _Sym) and x.group is not None:
                    x.group.members.append(node)
            elif node.op == "output":
                flat = tree_flatten(node.args[0])[0]
                outputs = [self.use(self.value_of(a)) for a in flat]
                # the last ones are state written back (capture: Captured.written)
                writes = list(zip(cap.written, outputs[len(outputs) - len(cap.written):]))
                outputs = outputs[:len(outputs) - len(cap.written)]
            self.done.add(node)
        for g in list(self.open):
            self.close(g)
        return Program(inputs=self.inputs, params=self.params, constants=self.constants,
                       steps=drop_dead_writes(self.steps, outputs + [v for _, v in writes]), outputs=outputs,
                       returns_tuple=cap.returns_tuple, writes=writes,
                       attributes=frozenset(p for p in [*cap.attributes.values(), *cap.lifted]
                                            if p in self.params))

    def visit_constant(self, node: torch.fx.Node) -> None:
        """A tensor constant: small literals by value, model attributes as named tensors."""
        cap = self.cap
        if node.target in cap.attributes:
            path = cap.attributes[node.target]
            v = self.params.get(path) or self.new_value("w_" + path, _shape(node), _dtype(node))
            self.params[path] = v
            self.env[node] = v
            return
        t = cap.constants[node.target]
        if t.numel() == 1:
            dt = str(t.dtype).removeprefix("torch.")
            val = t.reshape(()).item()
            self.env[node] = _Sym(Expr.const(val, None if t.is_floating_point() else dt),
                                  tuple(t.shape), dt)
            return
        v = self.new_value("c_" + str(node.target).lstrip("_"), tuple(t.shape), str(t.dtype).removeprefix("torch."))
        self.constants[v.name] = t
        self.env[node] = v

    def visit(self, node: torch.fx.Node) -> None:
        """Dispatch one call node."""
        import operator

        if node.target is operator.getitem:
            self.env[node] = self.env[node.args[0]][node.args[1]]
            return
        name, overload = op_name(node.target)
        if name in IDENTITY_OPS or (name == "_to_copy" and "dtype" not in node.kwargs):
            self.env[node] = self.env[node.args[0]]
            return
        if name in _FACTORIES and self.visit_factory(node, name):
            return
        if name in VIEW_OPS and self.visit_view(node, name):
            return
        if self.library is not None and self.library.visit(node, name):
            return
        if self.cores.visit(node, name, overload):
            return
        if self.indexing.visit(node, name, overload):
            return
        if self.visit_pointwise(node, name):
            return
        self.fallback(node)

    def visit_factory(self, node: torch.fx.Node, name: str) -> bool:
        """full/zeros/ones/scalar_tensor: a constant expression of the node's shape."""
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            return False
        if name in _FILL:
            fill: Any = _FILL[name]
        else:
            pos = _FACTORIES[name]
            fill = node.args[pos] if len(node.args) > pos else node.kwargs.get("fill_value")
            if isinstance(fill, torch.fx.Node) or fill is None:
                return False
        dt = _dtype(node)
        if dt == "bool":
            expr = Expr.const(bool(fill), "bool")
        elif val.is_floating_point():
            expr = Expr.const(float(fill))
        else:
            expr = Expr.const(int(fill), dt)
        self.env[node] = _Sym(expr, _shape(node), dt)
        return True

    # -- views ----------------------------------------------------------------------------------
    def visit_view(self, node: torch.fx.Node, name: str) -> bool:
        """A layout op: symbolic where the expression is unchanged, else a host view step."""
        src = node.args[0]
        if not isinstance(src, torch.fx.Node):
            return False
        in_shape = _shape(src)
        if isinstance(node.meta.get("val"), (tuple, list)):
            calls = split_calls(name, node.args, in_shape)
            if calls is None:
                return False
            v = self.use(self.value_of(src))
            outs = []
            for (method, args), val in zip(calls, node.meta["val"]):
                out = self.new_value(f"t_{node.name}_{len(outs)}", tuple(val.shape), v.dtype)
                self.steps.append(ViewStep(out=out, src=v, op=method, args=args))
                outs.append(out)
            self.env[node] = tuple(outs)
            return True
        out_shape, out_dtype = _shape(node), _dtype(node)
        calls = view_calls(name, node.args, in_shape, out_shape)
        if calls is None:
            return False
        x = self.env[src]
        if isinstance(x, _Sym) and calls[0][0] != "view":  # a bit view (x.view(torch.int32)) is stored
            sym = self.view_sym(x, out_shape) or self.indexing.slice_view(node, name, x)
            if sym is not None:
                self.env[node] = sym
                return True
        v = self.use(self.value_of(src))
        for i, (method, args) in enumerate(calls):
            last = i == len(calls) - 1
            shape = out_shape if last else tuple(args[0])
            out = self.new_value(f"t_{node.name}" if last else f"t_{node.name}_pre", shape, out_dtype if method == "view" else v.dtype)
            self.steps.append(ViewStep(out=out, src=v, op=method, args=args))
            v = out
        self.env[node] = v
        return True

    def view_sym(self, x: _Sym, shape: tuple[int, ...]) -> _Sym | None:
        """``x`` seen with ``shape`` without storing it, when the expression stays valid."""
        if shape == x.shape:
            return x
        g = x.group
        if g is None:
            if strip_leading_ones(shape) == strip_leading_ones(x.shape) or is_broadcast_of(x.shape, shape):
                return _Sym(x.expr, shape, x.dtype)
            dim_map = unit_dim_map(x.shape, shape) if positional(x.expr) else None
            if dim_map is not None:  # arange(n).unsqueeze(-1): the index leaves move
                return _Sym(remap(self, x.expr, x.shape, len(shape), dim_map), shape, x.dtype)
            return None
        if x.domain == "reduced" and isinstance(g.region, ReductionRegion):
            if shape in (g.keepdim_shape, g.dropped_shape):
                return _Sym(x.expr, shape, x.dtype, g, "reduced")
            if shape == g.domain:
                return _Sym(x.expr, shape, x.dtype, g, "full")
        return None

    # -- pointwise ------------------------------------------------------------------------------
    def visit_pointwise(self, node: torch.fx.Node, name: str) -> bool:
        """An elementwise op: a bigger expression, joining at most one open region."""
        if not isinstance(node.meta.get("val"), torch.Tensor):
            return False
        out_shape, out_dtype = _shape(node), _dtype(node)
        tensor_nodes = [a for a in tree_flatten((node.args, node.kwargs))[0] if isinstance(a, torch.fx.Node)]
        syms = {a: self.as_sym(a) for a in tensor_nodes}
        g = self.pick_group(syms, out_shape)
        if g is not None and g.region.kind in ("conv", "pool"):
            for a, s in list(syms.items()):  # their emitters have no index tiles for these leaves
                if s.group is None and positional(s.expr):
                    syms[a] = self.as_sym_stored(a)
        domain = "full"
        if g is not None:
            domain = "full" if out_shape == g.domain else "reduced"
            for a, s in list(syms.items()):
                if s.group is g and domain == "full" and s.domain == "reduced" and s.shape != g.keepdim_shape:
                    syms[a] = self.as_sym_stored(a)
                elif s.group is None and domain == "reduced" and out_shape != g.keepdim_shape:
                    syms[a] = _Sym(self.realign(s.expr, s.shape, g), g.keepdim_shape, s.dtype)
        args = tree_map(lambda a: syms[a].expr if isinstance(a, torch.fx.Node) else a, node.args)
        kwargs = tree_map(lambda a: syms[a].expr if isinstance(a, torch.fx.Node) else a, dict(node.kwargs))
        dts = [syms[a].dtype if isinstance(a, torch.fx.Node) else None for a in node.args]
        if name == "div" and g is not None and isinstance(g.region, ReductionRegion) and \
                _is_numel(node.args[1], g) and syms.get(node.args[0], _Sym(Expr("const"), (), "")).domain == "reduced":
            args = (args[0], Expr("numel")) + tuple(args[2:])  # a mean: keep the count symbolic
        expr = pointwise_expr(name, list(args), kwargs, dts, out_dtype)
        if expr is None:
            return False
        self.env[node] = _Sym(expr, out_shape, out_dtype, g, domain)
        size = _size(expr)
        if size > _EXPR_LIMIT or (size > _SHARED_EXPR_LIMIT and len(node.users) > 1):
            if g is not None:
                g.members.append(node)
            self.value_of(node)
        return True

    def as_sym_stored(self, node: Any) -> _Sym:
        """A node's value as an input leaf, storing it first."""
        v = self.value_of(node)
        return _Sym(Expr.input(v.name), v.shape, v.dtype)

    def pick_group(self, syms: dict, out_shape: tuple[int, ...]) -> _Group | None:
        """The one open region the result can join; operands of any other region are stored."""
        g = None
        for a, s in list(syms.items()):
            if s.group is None:
                continue
            ok = s.group is g or g is None
            if ok and isinstance(s.group.region, ReductionRegion):
                ok = out_shape in (s.group.domain, s.group.keepdim_shape, s.group.dropped_shape)
            elif ok:
                ok = out_shape == s.group.domain
            if ok:
                g = s.group
            else:
                syms[a] = self.as_sym_stored(a)
        return g

    def realign(self, e: Expr, shape: tuple[int, ...], g: _Group) -> Expr:
        """Rewrite an expression aligned to the dropped reduced shape of ``g`` so its inputs align
        to g's full domain (a size-1 dim inserted at every reduced dim, by host views)."""
        kept = [d for d in range(len(g.domain)) if d not in g.dims]
        return remap(self, e, g.dropped_shape, len(g.domain), kept)

    # -- fallbacks ------------------------------------------------------------------------------
    def fallback(self, node: torch.fx.Node) -> None:
        """Leave the op to torch: its tensor arguments are stored, its results are new values."""
        def arg(a: Any) -> Any:
            return self.use(self.value_of(a)) if isinstance(a, torch.fx.Node) else a

        args = tree_map(arg, tuple(node.args))
        kwargs = tree_map(arg, dict(node.kwargs))
        vals = node.meta.get("val")
        flat = list(vals) if isinstance(vals, (tuple, list)) else [vals]
        outs = []
        for i, t in enumerate(flat):
            base = f"t_{node.name}" if len(flat) == 1 else f"t_{node.name}_{i}"
            if not isinstance(t, torch.Tensor):  # a result slot that holds no tensor (None, an int)
                outs.append(self.new_value(base, (), "float32"))
                continue
            outs.append(self.new_value(base, tuple(t.shape), str(t.dtype).removeprefix("torch.")))
        self.steps.append(FallbackStep(outs=outs, op=str(node.target), args=args, kwargs=kwargs))
        self.env[node] = tuple(outs) if isinstance(vals, (tuple, list)) else outs[0]


def partition(captured: Captured, cores: str = "generated") -> Program:
    """Cut a captured graph into regions, host views and torch fallbacks (see the module doc).

    ``cores="library"`` keeps GEMM-like and conv-like cores as vendor-library calls
    (:mod:`akg_rag.lower.library`) and generates everything else; ``"generated"`` generates them
    too. Raises ``ConfigError`` for another mode."""
    return Partitioner(captured, cores).run()
