"""Loads and stores between tensors and tiles, for the C++ backend.

A tensor access ``x[i, a:b, idx]`` has per dimension a scalar index, a slice or an int tile (a
gather). Its tile has the gathers' broadcast shape first, then the slices' extents. Elements whose
index lies outside the tensor read ``other`` (loads) or are skipped (stores).

When the innermost dimension is a slice, the in-bounds part of each row is one contiguous index
range ``[lo, hi)`` (clamped once per row), so the copy loop has no per-element test and
vectorises; the out-of-bounds ends are filled with ``other``. Gathered elements are tested one by
one, and a masked-off element reads from offset 0 (a valid address) before the select.
"""

from __future__ import annotations

from akg_rag.lower.cpp_expr import align, conv
from akg_rag.lower.cpp_ops import OpsMixin, remap
from akg_rag.lower.cpp_prelude import CLASS_TYPES, DTYPES
from akg_rag.lower.cpp_shapes import Dim, Var
from akg_rag.sketch.nodes import Access, Expr, Slice


class AccessMixin(OpsMixin):
    """``access_shape``, ``emit_load`` and ``emit_store``."""

    def access_plan(self, a: Access) -> tuple[list[Dim], list[tuple]]:
        """The tile shape of an access and, per tensor dim, ("scalar", e) / ("slice", start, Dim) /
        ("gather", e)."""
        plan: list[tuple] = []
        gathers: list[list[Dim]] = []
        slices: list[Dim] = []
        for ix in a.indices:
            if isinstance(ix, Slice):
                ext = self.extent(ix.start, ix.stop)
                plan.append(("slice", ix.start, ext))
                slices.append(ext)
            else:
                s = self.shape(ix)
                if s:
                    plan.append(("gather", ix))
                    gathers.append(s)
                else:
                    plan.append(("scalar", ix))
        lead = self.broadcast(gathers, a) if gathers else []
        return lead + slices, plan

    def access_exprs(self, a: Access) -> list[Expr]:
        out: list[Expr] = []
        for ix in a.indices:
            out += [ix.start, ix.stop] if isinstance(ix, Slice) else [ix]
        return out

    def emit_load(self, a: Access, dst: Var, other: Expr | None) -> None:
        self._access(a, dst, other, load=True)

    def emit_store(self, src: Var, a: Access) -> None:
        self._access(a, src, None, load=False)

    def _access(self, a: Access, local: Var, other: Expr | None, load: bool) -> None:
        name = a.tensor
        ctype, _, tcls = DTYPES[self.names.tensors[name].dtype]
        shape, plan = self.access_plan(a)
        ngather = len(shape) - sum(1 for p in plan if p[0] == "slice")
        other_text = "0"
        if load and other is not None:
            t, c = self.elem(other, [])
            other_text = conv(t, c, local.cls)
        elif load:
            other_text = conv("0", "i", local.cls)

        def local_at(idx: list[str]) -> str:
            return self.var_elem(local, remap(idx, shape, local.shape)) if local.is_tile else local.cname

        def read(off: str) -> str:
            return conv(f"{CLASS_TYPES[tcls]}(p_{name}[{off}])", tcls, local.cls)

        def written(idx: list[str]) -> str:
            return f"static_cast<{ctype}>({local_at(idx)})"

        self.open("")   # a block: the index temporaries stay local to this access
        xs: dict[int, str] = {}
        oks: list[str] = []
        for d, p in enumerate(plan):
            if p[0] == "scalar":
                x = self.fresh("x")
                self.line(f"const int64_t {x} = {self.int_text(p[1])};")
                xs[d] = x
                oks.append(f"{x} >= 0 && {x} < sz_{name}_{d}")
        ok = self.fresh("ok")
        self.line(f"const bool {ok} = {' && '.join(oks) or 'true'};")
        slice_dims = [d for d, p in enumerate(plan) if p[0] == "slice"]
        inner = slice_dims[-1] if slice_dims else None
        opened = 0
        idx: list[str] = []
        # loops over the gather dims, then over the slices but the innermost
        for k in range(ngather):
            if shape[k].is_one():
                idx.append("0")
                continue
            j = self.fresh("g")
            if inner is None and load and k == ngather - 1:
                self.line("#pragma omp simd")
            self.open(f"for (int64_t {j} = 0; {j} < {shape[k].text}; ++{j})")
            opened += 1
            idx.append(j)
        for d, p in enumerate(plan):
            if p[0] == "gather":
                x = self.fresh("x")
                self.line(f"const int64_t {x} = {self.int_text_at(p[1], idx[:ngather], ngather)};")
                xs[d] = x
                ok2 = self.fresh("ok")
                self.line(f"const bool {ok2} = {ok} && {x} >= 0 && {x} < sz_{name}_{d};")
                ok = ok2
        pos = ngather
        for d in slice_dims:
            ext = shape[pos]
            start = self.int_text(plan[d][1])
            if d == inner:
                break
            j = self.fresh("j")
            if ext.is_one():
                j = "0"
            else:
                self.open(f"for (int64_t {j} = 0; {j} < {ext.text}; ++{j})")
                opened += 1
            idx.append(j)
            x = self.fresh("x")
            self.line(f"const int64_t {x} = {start} + {j};")
            xs[d] = x
            ok2 = self.fresh("ok")
            self.line(f"const bool {ok2} = {ok} && {x} >= 0 && {x} < sz_{name}_{d};")
            ok = ok2
            pos += 1
        base = " + ".join(f"{xs[d]} * st_{name}_{d}" for d in range(len(plan)) if d != inner) or "0"
        if inner is None:
            if load:
                self.line(f"{local_at(idx)} = {ok} ? {read(f'{ok} ? {base} : 0')} : {other_text};")
            else:
                self.line(f"if ({ok}) p_{name}[{base}] = {written(idx)};")
        else:
            ext, start = shape[pos], self.int_text(plan[inner][1])
            st0, lo, hi, j = self.fresh("st"), self.fresh("lo"), self.fresh("hi"), self.fresh("j")
            self.line(f"const int64_t {st0} = {start};")
            self.line(f"const int64_t {lo} = {ok} ? akg::clamp_lo({st0}, {ext.text}) : 0;")
            self.line(f"const int64_t {hi} = {ok} ? akg::clamp_hi({st0}, {ext.text}, sz_{name}_{inner}, {lo}) : 0;")
            full = idx + [j]
            off = f"{base} + ({st0} + {j}) * st_{name}_{inner}"
            if load:
                self.line(f"for (int64_t {j} = 0; {j} < {lo}; ++{j}) {local_at(full)} = {other_text};")
                self.line("#pragma omp simd")
                self.line(f"for (int64_t {j} = {lo}; {j} < {hi}; ++{j}) {local_at(full)} = {read(off)};")
                self.line(f"for (int64_t {j} = {hi}; {j} < {ext.text}; ++{j}) {local_at(full)} = {other_text};")
            else:
                self.line("#pragma omp simd")
                self.line(f"for (int64_t {j} = {lo}; {j} < {hi}; ++{j}) p_{name}[{off}] = {written(full)};")
        for _ in range(opened):
            self.close()
        self.close()

    def int_text_at(self, e: Expr, idx: list[str], rank: int) -> str:
        """int64 text of a gather index tile's element at the gather loop index ``idx``."""
        t, c = self.elem(e, align(idx, rank, self.shape(e)))
        return conv(t, c, "i")
