"""The cores of the partitioner's regions: reductions, GEMM, convolution, pooling and scans.

Each ``visit`` handles one aten node: it opens (or joins) a region and gives the node a symbolic
value reading the region's result (``reduced`` / ``acc`` leaves), so pointwise consumers become
the region's epilogue. Operands a core cannot take symbolically (GEMM and conv operands, pooled
tensors) are stored first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from akg_rag.lower.region import (ConvRegion, Expr, GemmRegion, PoolRegion, Reduction,
                                  ReductionRegion, ScanRegion, ViewStep)

if TYPE_CHECKING:
    from akg_rag.lower.partition import Partitioner

_FLOAT = ("float16", "bfloat16", "float32", "float64")
# name -> (kind, takes a dims list, dropped-dims result when there is no keepdim argument)
_REDUCTIONS = {
    "sum": "sum", "mean": "mean", "amax": "max", "amin": "min", "max": "max", "min": "min",
    "prod": "prod", "argmax": "argmax", "argmin": "argmin", "var": "var", "var_mean": "var",
    "any": "any", "all": "all",
}
_POOLS = {"max_pool1d_with_indices": ("max", 1), "max_pool2d_with_indices": ("max", 2),
          "max_pool3d_with_indices": ("max", 3), "avg_pool1d": ("avg", 1), "avg_pool2d": ("avg", 2),
          "avg_pool3d": ("avg", 3)}


def _shape(node: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in node.meta["val"].shape)


def _dtype(t: Any) -> str:
    return str(t.dtype).removeprefix("torch.")


def _tuple(x: Any, n: int, default: int) -> tuple[int, ...]:
    """An int or a list of ints (possibly empty) as an n-tuple."""
    if x is None or (isinstance(x, (list, tuple)) and len(x) == 0):
        return (default,) * n
    if isinstance(x, int):
        return (x,) * n
    x = tuple(int(v) for v in x)
    return x * n if len(x) == 1 else x


class CoreBuilder:
    """Builds core regions for a :class:`~akg_rag.lower.partition.Partitioner`."""

    def __init__(self, p: "Partitioner") -> None:
        self.p = p
        self.reverse_scans: dict[torch.fx.Node, torch.fx.Node] = {}  # cumsum node -> unflipped input
        self.skip: set[torch.fx.Node] = set()                          # flips folded into a scan
        self.alias: dict[torch.fx.Node, torch.fx.Node] = {}            # outer flip -> cumsum node
        self.count = 0

    def visit(self, node: torch.fx.Node, name: str, overload: str) -> bool:
        """Handle ``node`` if it is a core op; False otherwise."""
        if node in self.skip:
            return True
        if node in self.alias:
            self.p.env[node] = self.p.env[self.alias[node]]
            return True
        if name in _REDUCTIONS:
            return self.reduction(node, name, overload)
        if name in ("mm", "bmm", "addmm", "mv"):
            return self.gemm(node, name)
        if name == "convolution":
            return self.conv(node)
        if name in _POOLS:
            return self.pool(node, *_POOLS[name])
        if name in ("_adaptive_avg_pool2d", "adaptive_avg_pool1d", "_adaptive_avg_pool3d"):
            return self.adaptive_pool(node)
        if name in ("cumsum", "cumprod", "cummax", "cummin"):
            return self.scan(node, name)
        return False

    def rname(self) -> str:
        self.count += 1
        return f"r{self.count - 1}"

    # -- reductions -----------------------------------------------------------------------------
    def reduction(self, node: torch.fx.Node, name: str, overload: str) -> bool:
        from akg_rag.lower.partition import _Sym

        p = self.p
        src = node.args[0]
        if not isinstance(src, torch.fx.Node) or not isinstance(src.meta.get("val"), torch.Tensor):
            return False
        domain = _shape(src)
        rank = len(domain)
        is_prims = str(node.target).startswith("prims.")
        dims_arg = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
        if overload in ("default",) and not is_prims and name not in ("argmax", "argmin", "amax", "amin"):
            dims_arg = None  # sum(x), mean(x), max(x), var(x): every dim
        if isinstance(dims_arg, int):
            dims_arg = [dims_arg]
        if not dims_arg:
            dims = tuple(range(rank))
        else:
            dims = tuple(sorted({d + rank if d < 0 else d for d in dims_arg}))
        keepdim = False if is_prims else bool(node.kwargs.get("keepdim", node.args[2] if len(node.args) > 2
                                                              and isinstance(node.args[2], bool) else False))
        if name in ("var", "var_mean") and not is_prims:
            keepdim = bool(node.kwargs.get("keepdim", False))
        if rank == 0 or not dims:
            return False
        x = p.as_sym(src)
        g = x.group
        if g is not None and not (isinstance(g.region, ReductionRegion) and g.domain == domain
                                  and g.dims == dims and x.domain == "full"):
            x = p.as_sym_stored(src)
            g = None
        if g is None:
            g = next((o for o in p.open if isinstance(o.region, ReductionRegion)
                      and o.domain == domain and o.dims == dims), None)
        if g is None:
            region = ReductionRegion(inputs=[], shape=domain, dims=dims, reductions=[], outputs=[])
            g = p.open_group(region, domain, dims)
        out_shape = g.keepdim_shape if keepdim else g.dropped_shape
        kind = _REDUCTIONS[name]
        src_dtype = x.dtype
        vals = node.meta["val"]
        out_dtype = _dtype(vals[0] if isinstance(vals, (tuple, list)) else vals)

        def add(kind: str, expr: Expr) -> Expr:
            expr = p.bind(g, expr)
            for red in g.region.reductions:  # the same reduction twice (mean and var of x): once
                if red.kind == kind and red.expr == expr:
                    return Expr("reduced", ref=red.name)
            r = self.rname()
            g.region.reductions.append(Reduction(r, kind, expr))  # type: ignore[arg-type]
            return Expr("reduced", ref=r)

        def sym(e: Expr, dtype: str) -> "_Sym":
            return _Sym(e, out_shape, dtype, g, "reduced")

        e = x.expr
        if kind in ("sum", "prod", "mean"):
            if src_dtype not in _FLOAT and out_dtype != src_dtype:
                e = Expr.call("cast", e, dtype=out_dtype)
            r = add("sum" if kind == "mean" else kind, e)
            if kind == "mean":
                r = Expr.call("div", r, Expr("numel"))
            p.env[node] = sym(r, out_dtype)
        elif kind in ("max", "min"):
            if src_dtype == "bool":
                return self._undo(g)
            r = add(kind, e)
            if name in ("max", "min") and overload == "dim":
                wanted = any(u.args[1] == 1 and u.users for u in node.users)
                i = add("arg" + kind, e) if wanted else None
                p.env[node] = (sym(r, src_dtype), sym(i, "int64") if i is not None else None)
            else:
                p.env[node] = sym(r, src_dtype)
        elif kind in ("argmax", "argmin"):
            if src_dtype == "bool":
                return self._undo(g)
            p.env[node] = sym(add(kind, e), "int64")
        elif kind in ("any", "all"):
            cond = e if src_dtype == "bool" else Expr.call("ne", e, Expr.const(0, src_dtype) if src_dtype not in _FLOAT else Expr.const(0.0))
            nz = Expr.call("where", cond, Expr.const(1.0), Expr.const(0.0))
            r = add("max" if kind == "any" else "min", nz)
            p.env[node] = sym(Expr.call("gt", r, Expr.const(0.5)), "bool")
        else:  # var: two passes over the same data, in one region
            corr = node.kwargs.get("correction", node.args[2] if is_prims and len(node.args) > 2 else None)
            if corr is None:
                corr = 0 if node.kwargs.get("unbiased") is False else 1
            s = add("sum", e)
            mean = Expr.call("div", s, Expr("numel"))
            d = Expr.call("sub", e, mean)
            ss = add("sum", Expr.call("mul", d, d))
            var = Expr.call("div", ss, Expr.call("sub", Expr("numel"), Expr.const(float(corr))))
            if name == "var_mean":
                p.env[node] = (sym(var, out_dtype), sym(mean, out_dtype))
            else:
                p.env[node] = sym(var, out_dtype)
        return True

    def _undo(self, g: Any) -> bool:
        """Drop a region just opened for a reduction we turned down."""
        if not g.region.reductions and not g.region.outputs:
            self.p.open.remove(g)
        return False

    # -- GEMM -----------------------------------------------------------------------------------
    def gemm(self, node: torch.fx.Node, name: str) -> bool:
        from akg_rag.lower.partition import _Sym

        p = self.p
        out = _shape(node)
        dtype = _dtype(node.meta["val"])
        if name == "addmm":
            bias, a, b = node.args[0], node.args[1], node.args[2]
        else:
            bias, a, b = None, node.args[0], node.args[1]
        va = p.use(p.value_of(a))
        vb = p.use(p.value_of(b))
        shape = out
        if name == "mv":
            col = p.new_value(f"{vb.name}_col", vb.shape + (1,), vb.dtype)
            p.steps.append(ViewStep(out=col, src=vb, op="unsqueeze", args=(1,)))
            vb, shape = col, out + (1,)
        region = GemmRegion(a=va, b=vb, inputs=[], outputs=[], shape=shape)
        g = p.open_group(region, shape)
        acc = Expr("acc")
        if bias is not None:
            beta = node.kwargs.get("beta", 1)
            alpha = node.kwargs.get("alpha", 1)
            if alpha != 1:
                acc = Expr.call("mul", acc, Expr.const(float(alpha)))
            bexpr = self._operand(bias, shape)
            if beta != 1:
                bexpr = Expr.call("mul", bexpr, Expr.const(float(beta)))
            acc = Expr.call("add", acc, bexpr)
        sym = _Sym(acc, shape, dtype, g, "full")
        if name == "mv":
            p.env[node] = p.materialize(sym, f"t_{node.name}_col")
            v = p.use(p.env[node])
            flat = p.new_value(f"t_{node.name}", out, dtype)
            p.steps.append(ViewStep(out=flat, src=v, op="reshape", args=(out,)))
            p.env[node] = flat
            return True
        p.env[node] = sym
        return True

    def _operand(self, node: Any, shape: tuple[int, ...]) -> Expr:
        """An epilogue operand as an expression (stored first if it belongs to another region)."""
        s = self.p.as_sym(node)
        if s.group is not None:
            s = self.p.as_sym_stored(node)
        return s.expr

    # -- convolution ----------------------------------------------------------------------------
    def conv(self, node: torch.fx.Node) -> bool:
        from akg_rag.lower.partition import _Sym

        p = self.p
        x, w, bias, stride, padding, dilation, transposed, out_pad, groups = node.args[:9]
        vx = p.use(p.value_of(x))
        vw = p.use(p.value_of(w))
        vb = p.use(p.value_of(bias)) if isinstance(bias, torch.fx.Node) else None
        n = len(vw.shape) - 2
        shape = _shape(node)
        region = ConvRegion(x=vx, w=vw, bias=vb, stride=_tuple(stride, n, 1),
                            padding=_tuple(padding, n, 0), dilation=_tuple(dilation, n, 1),
                            groups=int(groups), transposed=bool(transposed),
                            output_padding=_tuple(out_pad, n, 0), inputs=[vb] if vb else [],
                            outputs=[], shape=shape)
        g = p.open_group(region, shape)
        p.env[node] = _Sym(Expr("acc"), shape, _dtype(node.meta["val"]), g, "full")
        return True

    # -- pooling --------------------------------------------------------------------------------
    def pool(self, node: torch.fx.Node, op: str, n: int) -> bool:
        from akg_rag.lower.partition import _Sym

        p = self.p
        args = list(node.args) + [None] * 8
        if op == "max":
            # the indices output must be unused: the pool region computes values only
            for u in node.users:
                if u.args[1] != 0 and u.users:
                    return False
            kernel = _tuple(args[1], n, 1)
            stride = _tuple(args[2], n, 0)
            stride = kernel if not args[2] else stride
            padding, dilation = _tuple(args[3], n, 0), _tuple(args[4], n, 1)
            ceil = bool(args[5]) if args[5] is not None else False
            include, divisor = False, None
            vals = node.meta["val"][0]
        else:
            kernel = _tuple(args[1], n, 1)
            stride = kernel if not args[2] else _tuple(args[2], n, 1)
            padding, dilation = _tuple(args[3], n, 0), (1,) * n
            ceil = bool(args[4]) if args[4] is not None else False
            include = bool(args[5]) if args[5] is not None else True
            divisor = args[6]
            vals = node.meta["val"]
        vx = p.use(p.value_of(node.args[0]))
        shape = tuple(int(s) for s in vals.shape)
        region = PoolRegion(x=vx, op=op, kernel=kernel, stride=stride, padding=padding,  # type: ignore[arg-type]
                            dilation=dilation, ceil_mode=ceil, count_include_pad=include,
                            divisor_override=divisor, inputs=[], outputs=[], shape=shape)
        g = p.open_group(region, shape)
        sym = _Sym(Expr("acc"), shape, _dtype(vals), g, "full")
        p.env[node] = (sym, None) if op == "max" else sym
        return True

    def adaptive_pool(self, node: torch.fx.Node) -> bool:
        """Adaptive average pooling whose windows tile the input exactly: a plain average pool."""
        from akg_rag.lower.partition import _Sym

        p = self.p
        x = node.args[0]
        ins, outs = _shape(x), _shape(node)
        n = len(node.args[1])
        if any(i % o for i, o in zip(ins[-n:], outs[-n:])):
            return False
        k = tuple(i // o for i, o in zip(ins[-n:], outs[-n:]))
        vx = p.use(p.value_of(x))
        region = PoolRegion(x=vx, op="avg", kernel=k, stride=k, padding=(0,) * n, dilation=(1,) * n,
                            ceil_mode=False, count_include_pad=True, divisor_override=None,
                            inputs=[], outputs=[], shape=outs)
        g = p.open_group(region, outs)
        p.env[node] = _Sym(Expr("acc"), outs, _dtype(node.meta["val"]), g, "full")
        return True

    # -- scans ----------------------------------------------------------------------------------
    def find_reverse_scans(self, graph: torch.fx.Graph) -> None:
        """``flip(cumsum(flip(x, [d]), d), [d])`` is a reverse scan of x: mark the flips."""
        for node in graph.nodes:
            if node.op != "call_function" or getattr(node.target, "__name__", "").split(".")[0] not in ("cumsum", "cumprod"):
                continue
            src = node.args[0]
            rank = len(_shape(node))
            d = node.args[1] + rank if node.args[1] < 0 else node.args[1]

            def is_flip(n: Any) -> bool:
                if not isinstance(n, torch.fx.Node) or getattr(n.target, "__name__", "").split(".")[0] != "flip":
                    return False
                return [a + rank if a < 0 else a for a in n.args[1]] == [d]

            users = list(node.users)
            if is_flip(src) and len(src.users) == 1 and len(users) == 1 and is_flip(users[0]):
                self.reverse_scans[node] = src.args[0]
                self.skip.add(src)
                self.alias[users[0]] = node

    def scan(self, node: torch.fx.Node, name: str) -> bool:
        from akg_rag.lower.partition import _Sym

        p = self.p
        with_indices = name in ("cummax", "cummin")   # (values, indices): the values only
        if with_indices and any(u.args[1] != 0 and u.users for u in node.users):
            return False
        val = node.meta["val"][0] if with_indices else node.meta["val"]
        src = self.reverse_scans.get(node, node.args[0])
        shape = tuple(int(s) for s in val.shape)
        rank = len(shape)
        if rank == 0:
            return False
        d = node.args[1] + rank if node.args[1] < 0 else node.args[1]
        x = p.as_sym(src)
        if x.group is not None:
            x = p.as_sym_stored(src)
        out_dtype = _dtype(val)
        e = x.expr if x.dtype in _FLOAT or x.dtype == out_dtype else Expr.call("cast", x.expr, dtype=out_dtype)
        op = {"cumsum": "sum", "cumprod": "prod", "cummax": "max", "cummin": "min"}[name]
        region = ScanRegion(inputs=[], op=op, dim=d, expr=e,  # type: ignore[arg-type]
                            reverse=node in self.reverse_scans, outputs=[], shape=shape)
        g = p.open_group(region, shape)
        region.expr = p.bind(g, e)
        sym = _Sym(Expr("acc"), shape, out_dtype, g, "full")
        p.env[node] = (sym, None) if with_indices else sym
        return True
