"""``matmul`` of tiles for the C++ backend, with f32 (f64) accumulation in plain k order per element.

Three loop shapes, chosen from the operands:

* register-blocked (2-D, ``b`` a row-major tile in memory): MR x NR blocks of the result are held
  in a local array across the whole k loop (MR * NR / 8 AVX2 registers), each step one broadcast
  of ``a`` times a vector row of ``b``; leftover rows and columns take the plain loops;
* row sweeps (any batch dims): for each row i and each k, ``out[i, :] += a[i, k] * b[k, :]``;
* dot products, when ``b`` is ``transpose(t)`` and the result has one row (a matrix-vector
  product): both operands then run along k in memory. With more rows, the transposed tile is
  copied once into row-major order and blocked as above (BK * BN copies against BM * BK * BN
  multiply-adds).
"""

from __future__ import annotations

from akg_rag.lower.cpp_ops import OpsMixin, remap
from akg_rag.lower.cpp_shapes import Dim, Var
from akg_rag.sketch.nodes import Call, Expr, Name

MR, NR = 4, 16   # register block: 4 rows x 16 columns (8 AVX2 registers of 8 floats)


class MatmulMixin(OpsMixin):
    """``matmul(e, into)``: the product into a fresh tile, or added onto an accumulator."""

    def tile_of(self, e: Expr) -> Var | None:
        """The tile holding ``e`` in memory (a local or a computed value), if any."""
        if id(e) in self.mat:
            return self.mat[id(e)]
        if isinstance(e, Name) and e.id not in self.names.tensors:
            var = self.lookup(e.id)
            return var if var is not None and var.is_tile else None
        return None

    def copy_tile(self, e: Expr) -> None:
        """Compute ``e`` (a transposed view) into its own row-major tile."""
        shape = self.shape(e)
        var = self.new_tile("m", shape, "f")
        self.write(var, shape, lambda idx: self.operand(e, idx, len(shape), "f"), "f")
        self.mat[id(e)] = var

    def matmul(self, e: Call, into: Var | None) -> Var:
        a, b = e.args
        out_shape = self.shape(e)
        out = into if into is not None else self.new_tile("mm", out_shape, "f")
        self.materialise(a)
        transposed = isinstance(b, Call) and b.func == "transpose" and id(b) not in self.mat
        if transposed and out_shape[-2].is_one():
            self.dots(a, b, out, out_shape, into is not None)
            return out
        if transposed:
            self.copy_tile(b)
        else:
            self.materialise(b)
        bvar, sb = self.tile_of(b), self.shape(b)
        if (len(out_shape) == 2 and bvar is not None and bvar.cls == "f" and bvar.shape == sb
                and len(sb) == 2 and out.shape == out_shape and not any(d.is_one() for d in out_shape)):
            self.blocked(a, bvar, out, sb[0], into is not None)
        else:
            self.rows(a, b, out, out_shape, into is not None)
        return out

    def dots(self, a: Expr, b: Expr, out: Var, out_shape: list[Dim], add: bool) -> None:
        nb, rank, kdim = len(out_shape) - 2, len(out_shape), self.shape(a)[-1]

        def dot(idx: list[str]) -> None:
            bidx, i, j = idx[:nb], idx[nb], idx[nb + 1]
            acc, k = self.fresh("acc"), self.fresh("k")
            target = self.var_elem(out, remap(idx, out_shape, out.shape))
            self.line(f"FT {acc} = {target if add else 'FT(0)'};")
            self.line(f"#pragma omp simd reduction(+:{acc})")
            self.open(f"for (int64_t {k} = 0; {k} < {kdim.text}; ++{k})")
            self.line(f"{acc} += {self.operand(a, bidx + [i, k], rank, 'f')} * "
                      f"{self.operand(b, bidx + [k, j], rank, 'f')};")
            self.close()
            self.line(f"{target} = {acc};")
        self.nest(out_shape, dot, simd=False)

    def rows(self, a: Expr, b: Expr, out: Var, out_shape: list[Dim], add: bool) -> None:
        nb, rank, kdim = len(out_shape) - 2, len(out_shape), self.shape(a)[-1]

        def row(idx: list[str]) -> None:
            bidx, i = idx[:nb], idx[nb]
            ncol = out_shape[-1].text

            def at(j: str) -> str:
                return self.var_elem(out, remap(bidx + [i, j], out_shape, out.shape))
            if not add:
                j = self.fresh("j")
                self.line("#pragma omp simd")
                self.line(f"for (int64_t {j} = 0; {j} < {ncol}; ++{j}) {at(j)} = FT(0);")
            k, av, j = self.fresh("k"), self.fresh("a"), self.fresh("j")
            self.open(f"for (int64_t {k} = 0; {k} < {kdim.text}; ++{k})")
            self.line(f"const FT {av} = {self.operand(a, bidx + [i, k], rank, 'f')};")
            self.line("#pragma omp simd")
            self.line(f"for (int64_t {j} = 0; {j} < {ncol}; ++{j}) {at(j)} += {av} * "
                      f"{self.operand(b, bidx + [k, j], rank, 'f')};")
            self.close()
        self.nest(out_shape[:-1], row, simd=False)

    def blocked(self, a: Expr, bvar: Var, out: Var, kdim: Dim, add: bool) -> None:
        """2-D ``out (+)= a @ b`` with ``b`` a row-major [K, N] tile and ``out`` a row-major [M, N]."""
        m, n, kk = out.shape[0].text, out.shape[1].text, kdim.text
        o, bt = out.cname, bvar.cname
        i0, j0, k, r, jj, c, av = (self.fresh(s) for s in ("i", "j", "k", "r", "c", "acc", "a"))

        def a_at(i: str) -> str:
            return self.operand(a, [i, k], 2, "f")
        self.line(f"int64_t {i0} = 0;")
        self.open(f"for (; {i0} + {MR} <= {m}; {i0} += {MR})")
        self.line(f"int64_t {j0} = 0;")
        self.open(f"for (; {j0} + {NR} <= {n}; {j0} += {NR})")
        self.line(f"FT {c}[{MR}][{NR}];")
        init = f"{o}[({i0} + {r}) * {n} + {j0} + {jj}]" if add else "FT(0)"
        self.line(f"for (int {r} = 0; {r} < {MR}; ++{r})")
        self.line(f"  for (int {jj} = 0; {jj} < {NR}; ++{jj}) {c}[{r}][{jj}] = {init};")
        self.open(f"for (int64_t {k} = 0; {k} < {kk}; ++{k})")
        self.line(f"const FT* {bt}row = {bt} + {k} * {n} + {j0};")
        self.open(f"for (int {r} = 0; {r} < {MR}; ++{r})")
        self.line(f"const FT {av} = {a_at(f'({i0} + {r})')};")
        self.line("#pragma omp simd")
        self.line(f"for (int {jj} = 0; {jj} < {NR}; ++{jj}) {c}[{r}][{jj}] += {av} * {bt}row[{jj}];")
        self.close()
        self.close()
        self.line(f"for (int {r} = 0; {r} < {MR}; ++{r})")
        self.line(f"  for (int {jj} = 0; {jj} < {NR}; ++{jj}) {o}[({i0} + {r}) * {n} + {j0} + {jj}] = {c}[{r}][{jj}];")
        self.close()
        # the columns past the last full block, for these MR rows
        self.open(f"for (int {r} = 0; {r} < {MR}; ++{r})")
        self.open(f"for (int64_t {jj} = {j0}; {jj} < {n}; ++{jj})")
        self.line(f"FT {av} = {o + f'[({i0} + {r}) * {n} + {jj}]' if add else 'FT(0)'};")
        self.line(f"for (int64_t {k} = 0; {k} < {kk}; ++{k}) "
                  f"{av} += {a_at(f'({i0} + {r})')} * {bt}[{k} * {n} + {jj}];")
        self.line(f"{o}[({i0} + {r}) * {n} + {jj}] = {av};")
        self.close()
        self.close()
        self.close()
        # the rows past the last full block
        self.open(f"for (; {i0} < {m}; ++{i0})")
        if not add:
            self.line("#pragma omp simd")
            self.line(f"for (int64_t {jj} = 0; {jj} < {n}; ++{jj}) {o}[{i0} * {n} + {jj}] = FT(0);")
        self.open(f"for (int64_t {k} = 0; {k} < {kk}; ++{k})")
        self.line(f"const FT {av} = {a_at(i0)};")
        self.line("#pragma omp simd")
        self.line(f"for (int64_t {jj} = 0; {jj} < {n}; ++{jj}) {o}[{i0} * {n} + {jj}] += {av} * {bt}[{k} * {n} + {jj}];")
        self.close()
        self.close()
