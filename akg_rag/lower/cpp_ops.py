"""Tile-level C++ for the C++ backend: loop nests, reductions and scans.

Each op becomes plain loops over a tile's extents that gcc vectorises: the innermost loop of an
elementwise nest carries ``#pragma omp simd`` (its iterations write distinct elements); a
reduction along the last axis keeps a scalar accumulator under ``omp simd reduction``, one along
an earlier axis sweeps the tile in memory order into a tile of partial results. Float data
accumulates in ``FT`` (float, or double for f64), integers in int64_t.
"""

from __future__ import annotations

from typing import Callable

from akg_rag.lower.cpp_expr import ExprMixin, conv, offset
from akg_rag.lower.cpp_prelude import CLASS_TYPES
from akg_rag.lower.cpp_shapes import Dim, Var, num_value, promote
from akg_rag.sketch import vocab
from akg_rag.sketch.nodes import BinOp, Call, Expr, Name, Neg

NEUTRAL = {
    ("sum", "f"): "FT(0)", ("sum", "i"): "int64_t(0)", ("prod", "f"): "FT(1)", ("prod", "i"): "int64_t(1)",
    ("max", "f"): "-std::numeric_limits<FT>::infinity()", ("max", "i"): "std::numeric_limits<int64_t>::lowest()",
    ("min", "f"): "std::numeric_limits<FT>::infinity()", ("min", "i"): "std::numeric_limits<int64_t>::max()",
    ("sum", "d"): "0.0", ("prod", "d"): "1.0",
}
OMP_OP = {"sum": "+", "prod": "*", "max": "max", "min": "min"}


def combine(kind: str, acc: str, v: str) -> str:
    """``acc`` updated with ``v`` (as an assignment)."""
    if kind == "sum":
        return f"{acc} += {v};"
    if kind == "prod":
        return f"{acc} *= {v};"
    return f"{acc} = akg::v{kind}({acc}, {v});"


def remap(idx: list[str], src: list[Dim], dst: list[Dim]) -> list[str]:
    """An index of a ``src``-shaped loop as an index into a ``dst`` tile holding the same data
    (shapes equal once size-1 dims are dropped)."""
    inner = [ix for ix, d in zip(idx, src) if not d.is_one()]
    out = []
    for d in dst:
        out.append("0" if d.is_one() else (inner.pop(0) if inner else "0"))
    return out


def last_axis(shape: list[Dim], ax: int) -> bool:
    """True when every dim after ``ax`` has size 1 (``ax`` is then the innermost in memory)."""
    return all(d.is_one() for d in shape[ax + 1:])


class OpsMixin(ExprMixin):
    """Loop nests and the ops that need their own loops (``self.mat`` holds their results)."""

    # ---- provided by the code generator -----------------------------------------------------------
    def line(self, text: str) -> None:
        raise NotImplementedError

    def open(self, head: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def fresh(self, stem: str) -> str:
        raise NotImplementedError

    def new_tile(self, hint: str, shape: list[Dim], cls: str) -> Var:
        raise NotImplementedError

    def matmul(self, e: Call, into: Var | None) -> Var:
        raise NotImplementedError

    # ---- loops ----------------------------------------------------------------------------------
    def nest(self, shape: list[Dim], body: Callable[[list[str]], None], simd: bool = True,
             ranges: dict[int, tuple[str, str]] | None = None) -> None:
        """Loops over ``shape`` (row-major, innermost last) around ``body(idx)``."""
        ranges = ranges or {}
        looped = [k for k, d in enumerate(shape) if not d.is_one() or k in ranges]
        idx: list[str] = []
        for k, d in enumerate(shape):
            if k not in looped:
                idx.append("0")
                continue
            j = self.fresh("j")
            lo, hi = ranges.get(k, ("0", d.text))
            if simd and k == looped[-1]:
                self.line("#pragma omp simd")
            self.open(f"for (int64_t {j} = {lo}; {j} < {hi}; ++{j})")
            idx.append(j)
        body(idx)
        for _ in looped:
            self.close()

    def write(self, var: Var, vshape: list[Dim], value: Callable[[list[str]], str], vcls: str) -> None:
        """``var = value`` elementwise over ``vshape`` (a scalar value fills the whole tile)."""
        if not var.is_tile:
            self.line(f"{var.cname} = {conv(value(['0'] * len(vshape)), vcls, var.cls)};")
            return
        if not vshape:
            tmp = self.fresh("s")
            self.line(f"const {CLASS_TYPES[vcls]} {tmp} = {value([])};")
            self.nest(var.shape, lambda idx: self.line(f"{var.cname}[{offset(idx, var.shape)}] = "
                                                       f"{conv(tmp, vcls, var.cls)};"))
            return
        self.nest(vshape, lambda idx: self.line(
            f"{var.cname}[{offset(remap(idx, vshape, var.shape), var.shape)}] = {conv(value(idx), vcls, var.cls)};"))

    # ---- materialised values --------------------------------------------------------------------
    def prepare(self, e: Expr) -> None:
        """Compute every reduction, scan and matmul inside ``e`` into a tile (post-order)."""
        if isinstance(e, BinOp):
            self.prepare(e.left)
            self.prepare(e.right)
        elif isinstance(e, Neg):
            self.prepare(e.operand)
        elif isinstance(e, Call):
            for a in e.args:
                self.prepare(a)
            if e.func in vocab.REDUCE_OPS:
                self.reduce(e)
            elif e.func in vocab.SCAN_OPS:
                self.scan(e)
            elif e.func == "matmul":
                self.mat[id(e)] = self.matmul(e, None)

    def materialise(self, e: Expr) -> None:
        """Compute an elementwise expression into its own tile (a matmul operand read many times)."""
        if self.is_view(e):
            return
        shape, cls = self.shape(e), self.cls(e)
        var = self.new_tile("m", shape, cls)
        self.write(var, shape, lambda idx: self.elem(e, idx)[0], cls)
        self.mat[id(e)] = var

    def is_view(self, e: Expr) -> bool:
        if id(e) in self.mat or isinstance(e, Name):
            return True
        return isinstance(e, Call) and e.func in ("transpose", "unsqueeze") and self.is_view(e.args[0])

    def result(self, e: Expr, shape: list[Dim], cls: str, init: str | None = None) -> Var:
        """A fresh scalar (``init`` given) or tile for the value of ``e``."""
        if not shape:
            name = self.fresh("r")
            self.line(f"{CLASS_TYPES[cls]} {name} = {init if init is not None else '0'};")
            var = Var(name, name, [], cls)
        else:
            var = self.new_tile("r", shape, cls)
        self.mat[id(e)] = var
        return var

    # ---- reductions -----------------------------------------------------------------------------
    def reduce(self, e: Call) -> None:
        src = e.args[0]
        s, kind = self.shape(src), e.func[len("reduce_"):]
        cin = promote(self.cls(src))
        out_shape = self.shape(e)
        if not s:
            t, c = self.elem(src, [])
            value = {"argmax": "int64_t(0)", "argmin": "int64_t(0)", "mean": conv(t, c, "f")}.get(kind, conv(t, c, cin))
            self.result(e, [], self.cls(e), value)
            return
        ax = int(num_value(e.kwargs["axis"])) % len(s)
        if kind in ("argmax", "argmin"):
            self.arg_reduce(e, src, s, ax, cin, out_shape, ">" if kind == "argmax" else "<")
            return
        op = "sum" if kind == "mean" else kind
        acc_cls = "f" if kind == "mean" else cin
        neutral = NEUTRAL[(op, acc_cls)]
        ext = s[ax].text
        finish = (lambda a: f"{a} / FT({ext})") if kind == "mean" else (lambda a: a)
        out = self.result(e, out_shape, acc_cls, neutral)
        rest = s[:ax] + s[ax + 1:]
        if last_axis(s, ax):
            def row(oidx: list[str]) -> None:
                acc = out.cname if not out.is_tile else self.fresh("acc")
                if out.is_tile:
                    self.line(f"{CLASS_TYPES[acc_cls]} {acc} = {neutral};")
                r = self.fresh("k")
                red = f"akg_{op}" if op in ("max", "min") and acc_cls == "f" else OMP_OP[op]
                self.line(f"#pragma omp simd reduction({red}:{acc})")
                self.open(f"for (int64_t {r} = 0; {r} < {ext}; ++{r})")
                t, c = self.elem(src, oidx[:ax] + [r] + oidx[ax:])
                self.line(combine(op, acc, conv(t, c, acc_cls)))
                self.close()
                if out.is_tile:
                    self.line(f"{self.var_elem(out, remap(oidx, rest, out_shape))} = {finish(acc)};")
                elif kind == "mean":
                    self.line(f"{acc} = {finish(acc)};")
            self.nest(rest, row, simd=False)
            return
        if out.is_tile:
            self.nest(out_shape, lambda idx: self.line(f"{self.var_elem(out, idx)} = {neutral};"))

        def sweep(idx: list[str]) -> None:
            target = self.var_elem(out, remap(idx[:ax] + idx[ax + 1:], rest, out_shape))
            t, c = self.elem(src, idx)
            self.line(combine(op, target, conv(t, c, acc_cls)))
        self.nest(s, sweep)
        if kind == "mean":
            self.write(out, out_shape, lambda idx: finish(self.var_elem(out, idx)), "f")

    def arg_reduce(self, e: Call, src: Expr, s: list[Dim], ax: int, cin: str, out_shape: list[Dim],
                   cmp: str) -> None:
        """First index of the extreme element along ``ax`` (a NaN counts as the extreme, as in torch)."""
        out = self.result(e, out_shape, "i", "0")
        rest = s[:ax] + s[ax + 1:]
        better = "({v} {cmp} {b} || ({v} != {v} && {b} == {b}))"
        if last_axis(s, ax):
            def row(oidx: list[str]) -> None:
                best, bi, r, v = self.fresh("best"), self.fresh("bi"), self.fresh("k"), self.fresh("v")
                t, c = self.elem(src, oidx[:ax] + ["0"] + oidx[ax:])
                self.line(f"{CLASS_TYPES[cin]} {best} = {conv(t, c, cin)};")
                self.line(f"int64_t {bi} = 0;")
                self.open(f"for (int64_t {r} = 1; {r} < {s[ax].text}; ++{r})")
                t, c = self.elem(src, oidx[:ax] + [r] + oidx[ax:])
                self.line(f"const {CLASS_TYPES[cin]} {v} = {conv(t, c, cin)};")
                self.open(f"if {better.format(v=v, b=best, cmp=cmp)}")
                self.line(f"{best} = {v};")
                self.line(f"{bi} = {r};")
                self.close()
                self.close()
                self.line(f"{self.var_elem(out, remap(oidx, rest, out_shape))} = {bi};")
            self.nest(rest, row, simd=False)
            return
        best = self.new_tile("best", out_shape, cin)

        def first(idx: list[str]) -> None:
            o = remap(idx[:ax] + idx[ax + 1:], rest, out_shape)
            t, c = self.elem(src, idx)
            self.line(f"{self.var_elem(best, o)} = {conv(t, c, cin)};")
            self.line(f"{self.var_elem(out, o)} = 0;")

        def later(idx: list[str]) -> None:
            o = remap(idx[:ax] + idx[ax + 1:], rest, out_shape)
            v = self.fresh("v")
            t, c = self.elem(src, idx)
            self.line(f"const {CLASS_TYPES[cin]} {v} = {conv(t, c, cin)};")
            self.open(f"if {better.format(v=v, b=self.var_elem(best, o), cmp=cmp)}")
            self.line(f"{self.var_elem(best, o)} = {v};")
            self.line(f"{self.var_elem(out, o)} = {idx[ax]};")
            self.close()
        self.nest(s, first, simd=False, ranges={ax: ("0", "1")})
        self.nest(s, later, simd=False, ranges={ax: ("1", s[ax].text)})

    # ---- scans ----------------------------------------------------------------------------------
    def scan(self, e: Call) -> None:
        """Inclusive prefix scan. Float sums and products run in double, as torch's CPU cumsum and
        cumprod accumulate: a scan adds its elements one after another, so float rounding errors
        would grow with the length of the row."""
        src = e.args[0]
        s, kind = self.shape(src), e.func[len("scan_"):]
        cls = promote(self.cls(src))
        if not s:
            t, c = self.elem(src, [])
            self.result(e, [], cls, conv(t, c, cls))
            return
        ax = int(num_value(e.kwargs["axis"])) % len(s)
        out = self.result(e, s, cls)
        acc = "d" if cls == "f" and kind != "max" else cls
        atype, otype = CLASS_TYPES[acc], CLASS_TYPES[cls]

        def step(run: str, idx: list[str]) -> None:
            t, c = self.elem(src, idx)
            self.line(combine(kind, run, f"{atype}({conv(t, c, cls)})"))
            self.line(f"{self.var_elem(out, idx)} = {otype}({run});")
        rev = "reverse" in e.kwargs and bool(num_value(e.kwargs["reverse"]))

        def at(idx: list[str]) -> list[str]:  # the j-th position visited: from the end when reversed
            return idx[:ax] + [f"({s[ax].text} - 1 - {idx[ax]})"] + idx[ax + 1:] if rev else idx
        if last_axis(s, ax):
            def row(oidx: list[str]) -> None:
                run, r = self.fresh("run"), self.fresh("k")
                self.line(f"{atype} {run} = {NEUTRAL[(kind, acc)]};")
                self.open(f"for (int64_t {r} = 0; {r} < {s[ax].text}; ++{r})")
                step(run, at(oidx[:ax] + [r] + oidx[ax:]))
                self.close()
            self.nest(s[:ax] + s[ax + 1:], row, simd=False)
            return
        # one running value per position of the other axes, swept in memory order
        rest = s[:ax] + s[ax + 1:]
        runs = self.new_tile("run", rest, acc)
        self.nest(rest, lambda idx: self.line(f"{self.var_elem(runs, idx)} = {NEUTRAL[(kind, acc)]};"))
        self.nest(s, lambda idx: step(self.var_elem(runs, idx[:ax] + idx[ax + 1:]), at(idx)))
