"""Expressions of a sketch as Triton expressions (used by :mod:`akg_rag.lower.triton_kernel`).

A tile of extents ``[E0, E1]`` is a Triton tensor of ``[BLOCK_E0, BLOCK_E1]`` (powers of two,
see :class:`Blocks`); ``offs_E`` is ``tl.arange(0, BLOCK_E)`` and ``mask_E`` marks its valid
lanes. Lanes past an extent hold garbage that never reaches memory or a reduction: reductions
replace them by the neutral element, ``matmul`` zeroes them on the inner axis, and stores mask
them. Values compute in the dtype :mod:`akg_rag.lower.typed` gives them; every operand is converted
to it explicitly where Triton's own promotion would differ.
"""

from __future__ import annotations

from akg_rag.lower import triton_ops as ops
from akg_rag.lower.infer import BITWISE_OPS, VType, promote
from akg_rag.lower.sizes import Size
from akg_rag.lower.triton_names import (
    ADD, AND, ATOM, CMP, COMPUTE_TL, MUL, OR, UNARY, XOR, Blocks, Em, Namer, fail, lit,
)
from akg_rag.lower.typed import TypedSketch
from akg_rag.sketch import vocab
from akg_rag.sketch.nodes import BinOp, Call, Expr, Name, Neg, Num, Str

_INFIX = {"add": ("+", ADD), "sub": ("-", ADD), "mul": ("*", MUL), "div": ("/", MUL),
          "gt": (">", CMP), "ge": (">=", CMP), "lt": ("<", CMP), "le": ("<=", CMP), "eq": ("==", CMP),
          "ne": ("!=", CMP), "logical_and": ("&", AND), "logical_or": ("|", OR)}
_BITWISE = {"bitwise_and": ("&", AND), "bitwise_or": ("|", OR), "bitwise_xor": ("^", XOR)}


class ExprWriter:
    """Emits sketch expressions; a kernel writer provides names, tiles, masks and loads."""

    t: TypedSketch
    blocks: Blocks
    namer: Namer
    helpers: set[str]

    # ---- provided by the kernel writer ---------------------------------------------------------
    def offs(self, s: Size) -> str:
        """Name of ``tl.arange(0, BLOCK)`` for extent ``s``."""
        raise NotImplementedError

    def mask(self, s: Size) -> str:
        """Name of the valid-lane mask of extent ``s``."""
        raise NotImplementedError

    def var(self, name: str) -> str:
        """Python name of a sketch identifier."""
        raise NotImplementedError

    def whole_tensor(self, name: str) -> Em:
        """A tensor named in a computation: the load of all of it."""
        raise NotImplementedError

    def dot_switch(self, a: Expr, b: Expr) -> str:
        """Name of the kernel's constexpr choosing how an f32 ``tl.dot`` of operands ``a`` and ``b``
        (sketch expressions) multiplies."""
        raise NotImplementedError

    # ---- sizes and plain index arithmetic ------------------------------------------------------
    def index(self, e: Expr) -> Em:
        """An index or size expression (symbols, tunables, loop variables, params, numbers)."""
        if isinstance(e, Num):
            return lit(e.value, "f32" if isinstance(e.value, float) else "i32")
        if isinstance(e, Name):
            if e.id in self.t.params and e.id not in self.t.tunables:
                return self.index(self.t.params[e.id])
            return Em(self.var(e.id))
        if isinstance(e, Neg):
            return Em(f"-{self.index(e.operand).at(UNARY)}", UNARY)
        if isinstance(e, BinOp):
            prec = ADD if e.op in "+-" else MUL
            left, right = self.index(e.left), self.index(e.right)
            return Em(f"{left.at(prec)} {e.op} {right.at(prec + 1)}", prec)
        return self.expr(e)

    def size(self, s: Size) -> Em:
        """The value of an extent in kernel code."""
        return self.index(s.expr)

    @staticmethod
    def expand(text: str, axis: int, rank: int) -> str:
        """A 1-D tile ``text`` placed on ``axis`` of a rank-``rank`` tile (``x[None, :]``)."""
        if rank <= 1:
            return text
        return f"{text}[{', '.join(':' if k == axis else 'None' for k in range(rank))}]"

    def valid(self, shape: tuple[Size, ...], axes: list[int] | None = None) -> str | None:
        """Mask of the valid lanes of a tile of ``shape`` (only ``axes`` when given)."""
        parts = [self.expand(self.mask(s), k, len(shape)) for k, s in enumerate(shape)
                 if (axes is None or k in axes) and self.blocks.padded(s)]
        return " & ".join(parts) if parts else None

    def block_shape(self, shape: tuple[Size, ...]) -> str:
        """``(BLOCK_M, BLOCK_N)`` of a tile shape."""
        inner = ", ".join(self.blocks.name(s) for s in shape)
        return f"({inner},)" if len(shape) == 1 else f"({inner})"

    # ---- conversions ---------------------------------------------------------------------------
    def convert(self, em: Em, src: VType, dtype: str) -> Em:
        """``em`` (of type ``src``) as ``dtype``."""
        if src.dtype == dtype:
            return em
        if dtype == "bool":
            return Em(f"{em.at(CMP + 1)} != 0", CMP)
        if src.rank == 0:
            return Em(f"tl.cast({em.text}, {COMPUTE_TL[dtype]})")
        return Em(f"{em.at(ATOM)}.to({COMPUTE_TL[dtype]})")

    def operand(self, e: Expr, dtype: str) -> Em:
        """Expression ``e`` converted to ``dtype`` (weak literals are written in that dtype)."""
        t = self.t.type_of(e) if not isinstance(e, Num) else None
        if isinstance(e, Num):
            return lit(e.value, dtype)
        if isinstance(e, Neg) and isinstance(e.operand, Num):
            return lit(-e.operand.value, dtype)
        if isinstance(e, Name) and e.id in self.t.params and e.id not in self.t.tunables:
            value = self.t.params[e.id]
            if isinstance(value, (Num, Neg)):
                return self.operand(value, dtype)
        assert t is not None
        em = self.expr(e)
        if t.weak and t.kind != "bool" and dtype not in ("bool",) and not (t.kind == "float" and dtype in ("i32", "i64")):
            return em  # a constant: Triton types it with the tile it meets
        return self.convert(em, t, dtype)

    def reshape(self, em: Em, src: VType, dst: VType) -> Em:
        """A value of ``src`` shape as a local of ``dst`` shape (same data, size-1 axes differ)."""
        if [s.key for s in src.shape] == [s.key for s in dst.shape]:
            return em
        if src.rank == 0:
            return Em(f"tl.zeros({self.block_shape(dst.shape)}, {COMPUTE_TL[dst.dtype]}) + {em.at(ADD + 1)}", ADD)
        if dst.rank == 0:
            fn = "tl.max" if dst.dtype == "bool" else "tl.sum"
            return Em(f"{fn}(tl.reshape({em.text}, (1,)), axis=0)")
        keys = [s.key for s in src.shape]
        dkeys = [s.key for s in dst.shape]
        if len(dkeys) > len(keys):  # insert size-1 axes by indexing when src is a subsequence
            pattern, i = [], 0
            for k in dkeys:
                if i < len(keys) and keys[i] == k:
                    pattern.append(":")
                    i += 1
                else:
                    pattern.append("None")
            if i == len(keys) and all(dst.shape[j].is_one for j, p in enumerate(pattern) if p == "None"):
                return Em(f"{em.at(ATOM)}[{', '.join(pattern)}]")
        return Em(f"tl.reshape({em.text}, {self.block_shape(dst.shape)})")

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, e: Expr) -> Em:
        """Expression ``e`` in its own compute dtype."""
        if isinstance(e, Num):
            return lit(e.value, "f32" if isinstance(e.value, float) else "i32")
        if isinstance(e, Name):
            if e.id in self.t.shapes:
                return self.whole_tensor(e.id)
            if e.id in self.t.params and e.id not in self.t.tunables:
                return self.expr(self.t.params[e.id])
            return Em(self.var(e.id))
        if isinstance(e, Neg):
            r = self.t.type_of(e)
            return Em(f"-{self.operand(e.operand, r.dtype).at(UNARY)}", UNARY)
        if isinstance(e, BinOp):
            return self.binop(e)
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Str):
            raise fail("a string is only allowed as the first argument of apply", e)
        raise fail("not an expression", e)

    def binop(self, e: BinOp) -> Em:
        r = self.t.type_of(e)
        if e.op in ("//", "%"):
            if r.kind == "float":
                a, b = self.operand(e.left, r.dtype), self.operand(e.right, r.dtype)
                if e.op == "//":
                    return Em(f"tl.floor({a.at(MUL)} / {b.at(MUL + 1)})")
                return self.helper("remainder", [a, b])
            a, b = self.operand(e.left, r.dtype), self.operand(e.right, r.dtype)
            return Em(f"{a.at(MUL)} {e.op} {b.at(MUL + 1)}", MUL)
        if e.op == "+":
            folded = self.dot_into(e.left, e.right, r)
            if folded is not None:
                return folded
        name = {"+": "add", "-": "sub", "*": "mul", "/": "div"}[e.op]
        return self.infix(name, [e.left, e.right], r)

    def dot_into(self, left: Expr, right: Expr, r: VType) -> Em | None:
        """``acc + a @ b`` (either order) as one ``tl.dot`` accumulating into ``acc`` (an f32 tile of
        the product's shape), or None."""
        if r.dtype != "f32":
            return None
        for mm, acc in ((right, left), (left, right)):
            ta = self.t.type_of(acc)
            if isinstance(mm, Call) and mm.func == "matmul" and self.t.type_of(mm).shape == r.shape \
                    and ta.shape == r.shape and ta.dtype == "f32" and not ta.weak:
                folded = self.matmul(mm, r, acc=self.expr(acc))
                if folded is not None:
                    return folded
        return None

    def infix(self, op: str, args: list[Expr], r: VType) -> Em:
        sym, prec = _INFIX[op]
        if prec == CMP:
            dtype, _ = promote([self.t.type_of(a) if not isinstance(a, Num) else _num_type(a) for a in args])
        elif prec in (AND, OR):
            dtype = "bool"
        else:
            dtype = r.dtype
        a, b = (self.operand(x, dtype) for x in args)
        # Python chains comparisons (`a > 0 != c` is `a > 0 and 0 != c`): a comparison on the left
        # of one is parenthesised too
        return Em(f"{a.at(prec + 1 if prec == CMP else prec)} {sym} {b.at(prec + 1)}", prec)

    def helper(self, name: str, args: list[Em]) -> Em:
        self.helpers.add(name)
        return Em(f"_{name}({', '.join(a.text for a in args)})")

    def call(self, e: Call) -> Em:
        f, r = e.func, self.t.type_of(e)
        if f == "iota":
            return Em(self.offs(r.shape[0]))
        if f == "cast":
            return self.cast(e, r)
        if f == "apply":
            return self.apply(e, r)
        if f in vocab.REDUCE_OPS:
            return self.reduce(e, r)
        if f in vocab.SCAN_OPS:
            return self.scan(e, r)
        if f == "matmul":
            return self.matmul(e, r)  # type: ignore[return-value] - None only with an accumulator
        if f == "add" and len(e.args) == 2:
            folded = self.dot_into(e.args[0], e.args[1], r)
            if folded is not None:
                return folded
        if f == "unsqueeze":
            a = self.t.type_of(e.args[0])
            if a.rank == 0:
                return self.reshape(self.expr(e.args[0]), a, r)
            ax = e.kwargs["axis"].value % (a.rank + 1)  # type: ignore[union-attr]
            pattern = [":"] * a.rank
            pattern.insert(ax, "None")
            return Em(f"{self.expr(e.args[0]).at(ATOM)}[{', '.join(pattern)}]")
        if f == "transpose":
            a = self.t.type_of(e.args[0])
            x = self.expr(e.args[0])
            if a.rank < 2:
                return x
            if a.rank == 2:
                return Em(f"tl.trans({x.text})")
            perm = list(range(a.rank - 2)) + [a.rank - 1, a.rank - 2]
            return Em(f"tl.permute({x.text}, {tuple(perm)})")
        if f == "where":
            c = self.operand(e.args[0], "bool")
            a, b = self.operand(e.args[1], r.dtype), self.operand(e.args[2], r.dtype)
            return Em(f"tl.where({c.text}, {a.text}, {b.text})")
        if f in _INFIX:
            return self.infix(f, e.args, r)
        if f in BITWISE_OPS:
            return self.bitwise(f, e.args, r)
        return self.elementwise(f, e, r)

    def bitwise(self, f: str, args: list[Expr], r: VType) -> Em:
        """Bits of integers in the result's dtype; of bools, the logical op (``~`` of an int1 is not
        ``not``)."""
        if f == "bitwise_not":
            a = self.operand(args[0], r.dtype)
            return Em(f"{a.at(CMP + 1)} == 0", CMP) if r.dtype == "bool" else Em(f"~{a.at(UNARY)}", UNARY)
        sym, prec = _BITWISE[f]
        a, b = (self.operand(x, r.dtype) for x in args)
        return Em(f"{a.at(prec)} {sym} {b.at(prec + 1)}", prec)

    def elementwise(self, f: str, e: Call, r: VType) -> Em:
        if f == "logical_not":
            return Em(f"{self.operand(e.args[0], 'bool').at(CMP + 1)} == 0", CMP)
        if f == "signbit" and self.t.type_of(e.args[0]).kind != "float":
            return Em(f"{self.expr(e.args[0]).at(CMP + 1)} < 0", CMP)
        if f in ("isnan", "isinf", "signbit"):
            a = self.t.type_of(e.args[0])
            if a.kind != "float":
                return Em("False") if a.rank == 0 else Em(f"{self.expr(e.args[0]).at(CMP + 1)} != {self.expr(e.args[0]).at(CMP + 1)}", CMP)
            return self.helper(f, [self.expr(e.args[0])])
        args = [self.operand(a, r.dtype) for a in e.args]
        if r.kind != "float":
            if f in ("floor", "ceil", "trunc", "round"):
                return args[0]
            if f == "neg":
                return Em(f"-{args[0].at(UNARY)}", UNARY)
            if f == "abs":
                return Em(f"tl.abs({args[0].text})")
            if f in ("max", "min"):
                return Em(f"tl.{f}imum({args[0].text}, {args[1].text})")
            if f in ("remainder", "floordiv", "sign"):
                return self.helper(f, args)
            if f == "fmod":
                return Em(f"{args[0].at(MUL)} % {args[1].at(MUL + 1)}", MUL)
            raise fail(f"{f} needs floating operands here, got {r}", e)
        if r.rank == 0 and all(self.t.type_of(a).weak for a in e.args if not isinstance(a, Num)):
            args = [Em(f"tl.full((), {a.text}, {COMPUTE_TL[r.dtype]})") for a in args]  # math on a constant
        if f in ops.FLOAT_UNARY:
            return Em(ops.FLOAT_UNARY[f].format(*(a.at(MUL + 1) if f == "reciprocal" else a.text for a in args)),
                      MUL if f == "reciprocal" else ATOM)
        if f == "neg":  # Triton's -x is 0 - x, +0.0 at x = +0.0; a product by -1 flips zero's sign too
            return Em(f"{args[0].at(MUL)} * -1.0", MUL)
        if f == "abs":
            return Em(f"tl.abs({args[0].text})")
        if f in ("max", "min"):  # NaN wins, as in torch.maximum (Triton's default drops it)
            return Em(f"tl.{f}imum({args[0].text}, {args[1].text}, propagate_nan=tl.PropagateNan.ALL)")
        if f == "floordiv":
            return Em(f"tl.floor({args[0].at(MUL)} / {args[1].at(MUL + 1)})")
        if f in ops.HELPER_UNARY or f in ops.HELPER_BINARY:
            return self.helper(f, args)
        raise fail(f"compute op {f!r} has no Triton lowering", e)

    def to_storage(self, em: Em, v: VType, dtype: str) -> Em:
        """A computed value (``v``) as the storage type ``dtype`` of a tensor it is stored into;
        bf16 rounds to nearest even on the interpreter too (triton_ops: bf16)."""
        if ops.STORAGE[dtype] == COMPUTE_TL[v.dtype]:
            return em
        if dtype == "bf16":
            self.helpers.add("bf16")
            return Em(f"_bf16({em.text})")
        return Em(f"{em.at(ATOM)}.to({ops.STORAGE[dtype]})") if v.rank else Em(f"tl.cast({em.text}, {ops.STORAGE[dtype]})")

    def cast(self, e: Call, r: VType) -> Em:
        a = self.t.type_of(e.args[0])
        dt = e.args[1].id  # type: ignore[union-attr]
        em = self.convert(self.expr(e.args[0]), a, r.dtype)
        if dt == "bf16":  # through the stored form, then back to the compute type
            return Em(f"{self.to_storage(em, r, dt).text}.to({COMPUTE_TL[r.dtype]})")
        if dt in ("f16", "i8", "i16", "u8"):  # round / wrap through the narrow type
            em = Em(f"{em.at(ATOM)}.to({ops.STORAGE[dt]}).to({COMPUTE_TL[r.dtype]})")
            if a.rank == 0 and r.rank == 0:
                em = Em(f"tl.cast(tl.cast({self.convert(self.expr(e.args[0]), a, r.dtype).text}, "
                        f"{ops.STORAGE[dt]}), {COMPUTE_TL[r.dtype]})")
        return em

    def apply(self, e: Call, r: VType) -> Em:
        fname = e.args[0].value  # type: ignore[union-attr]
        if fname not in ops.APPLY:
            raise fail(f"apply({fname!r}) has no Triton lowering; supported: {', '.join(sorted(ops.APPLY))}", e)
        template, defaults = ops.APPLY[fname]
        args = [self.operand(a, r.dtype) for a in e.args[1:]]
        extra = [a.text for a in args[1:]] + list(defaults[len(args) - 1:])
        for h in ("tanh", "softplus"):
            if f"_{h}(" in template:
                self.helpers.add(h)
        x = args[0].at(ATOM)
        return Em(template.format(x=x, **{f"a{i + 1}": v for i, v in enumerate(extra)}), 0)

    # ---- reductions, scans, matmul -------------------------------------------------------------
    def reduce(self, e: Call, r: VType) -> Em:
        f = e.func
        a = self.t.type_of(e.args[0])
        work = "i32" if a.dtype == "bool" else a.dtype
        x = self.operand(e.args[0], work)
        if f == "reduce_mean" and work in ("i32", "i64"):
            x, work = self.convert(x, VType(a.shape, work), "f32"), "f32"
        if a.rank == 0:
            return self.convert(x, VType((), work), r.dtype)
        ax = e.kwargs["axis"].value % a.rank  # type: ignore[union-attr]
        keep = ", keep_dims=True" if "keepdim" in e.kwargs and e.kwargs["keepdim"].value else ""  # type: ignore[union-attr]
        kind = "float" if work in ("f32", "f64") else "int"
        m = self.valid(a.shape, [ax])
        if m is not None:
            neutral = ops.NEUTRAL.get((f, kind))
            if neutral is None:  # integer max/min/argmax/argmin
                neutral = (ops.INT_MIN if f in ("reduce_max", "reduce_argmax") else ops.INT_MAX)[work]
            x = Em(f"tl.where({m}, {x.text}, {neutral})")
        if f in ("reduce_sum", "reduce_mean"):
            out = Em(f"tl.sum({x.text}, axis={ax}{keep})")
            if f == "reduce_mean":
                out = Em(f"{out.text} / {self.size(a.shape[ax]).at(MUL + 1)}", MUL)
            return out
        if f in ("reduce_max", "reduce_min"):
            if kind == "float":  # a NaN in the row is the result, as torch.amax (tl.max drops it)
                self.helpers.add(f"{f[7:]}_nan")
                return Em(f"tl.reduce({x.text}, {ax}, _{f[7:]}_nan{keep})")
            return Em(f"tl.{f[7:]}({x.text}, axis={ax}{keep})")
        if f == "reduce_prod":
            self.helpers.add("prod_combine")
            return Em(f"tl.reduce({x.text}, {ax}, _prod_combine{keep})")
        if kind == "float":  # the first NaN of the row, as torch.argmax (tl.argmax skips NaNs)
            self.helpers.add(f"{f[7:]}_nan")
            return Em(f"_{f[7:]}_nan({x.text}, {ax}, {bool(keep)})")
        return Em(f"tl.{f[7:]}({x.text}, axis={ax}, tie_break_left=True{keep})")

    def scan(self, e: Call, r: VType) -> Em:
        a = self.t.type_of(e.args[0])
        x = self.operand(e.args[0], r.dtype)
        if a.rank == 0:
            return x
        ax = e.kwargs["axis"].value % a.rank  # type: ignore[union-attr]
        rev = bool(e.kwargs["reverse"].value) if "reverse" in e.kwargs else False  # type: ignore[union-attr]
        # padded lanes sit after the valid ones on the scan axis: they cannot reach a valid
        # prefix, but they do reach every valid suffix, so a reverse scan sets them neutral
        m = self.valid(a.shape, [ax]) if rev else None
        if m is not None:
            kind = "float" if r.dtype in ("f32", "f64") else "int"
            red = {"scan_sum": "reduce_sum", "scan_prod": "reduce_prod", "scan_max": "reduce_max"}[e.func]
            neutral = ops.NEUTRAL.get((red, kind)) or ops.INT_MIN[r.dtype]
            x = Em(f"tl.where({m}, {x.text}, {neutral})")
        tail = ", reverse=True" if rev else ""
        if e.func == "scan_sum":
            return Em(f"tl.cumsum({x.text}, axis={ax}{tail})")
        if e.func == "scan_prod":
            return Em(f"tl.cumprod({x.text}, axis={ax}{tail})")
        combine = "max_nan" if r.dtype in ("f32", "f64") else "max_combine"  # cummax keeps a NaN, as torch
        self.helpers.add(combine)
        return Em(f"tl.associative_scan({x.text}, {ax}, _{combine}{tail})")

    def matmul(self, e: Call, r: VType, acc: Em | None = None) -> Em | None:
        """``a @ b``; with ``acc`` (an f32 tile of the result's shape) ``acc + a @ b`` as one
        ``tl.dot`` accumulating into it, or None when this product is not a ``tl.dot``."""
        a, b = (self.t.type_of(x) for x in e.args)
        rank = max(a.rank, b.rank)
        dims = (a.shape[-2], a.shape[-1], b.shape[-1])
        if acc is not None and (any(d.is_one for d in dims) or rank > 3 or a.rank != b.rank):
            return None
        x, y = self.operand(e.args[0], r.dtype), self.operand(e.args[1], r.dtype)
        k = a.shape[-1]
        if self.blocks.padded(k):  # the inner axis must add nothing past its extent
            zero = lit(0, r.dtype).text
            x = Em(f"tl.where({self.expand(self.mask(k), a.rank - 1, a.rank)}, {x.text}, {zero})")
            y = Em(f"tl.where({self.expand(self.mask(k), b.rank - 2, b.rank)}, {y.text}, {zero})")
        into = f", {acc.text}" if acc is not None else ""
        if any(d.is_one for d in dims) or rank > 3 or r.dtype != "f32" or a.rank != b.rank:
            # outer products summed over k: any shape and dtype, exact f32/f64 products
            xa = f"{x.at(ATOM)}[{', '.join([':'] * a.rank + ['None'])}]"
            yb = f"{y.at(ATOM)}[{', '.join([':'] * (b.rank - 2) + ['None', ':', ':'])}]"
            return Em(f"tl.sum({xa} * {yb}, axis={rank - 1})")
        half = join16(a.exact, b.exact)
        if half is not None:  # 16-bit inputs held exactly: tensor cores, f32 accumulation
            if half == "bf16":  # through a helper the interpreter can run (triton_ops: dot_bf16)
                self.helpers.add("dot_bf16")
                return Em(f"_dot_bf16({x.text}, {y.text}, {acc.text if acc is not None else 'None'})")
            tl16 = ops.STORAGE[half]
            return Em(f"tl.dot({x.at(ATOM)}.to({tl16}), {y.at(ATOM)}.to({tl16}){into})")
        # f32: IEEE products on the FMA units, or (DOT_X3, from the DOT_MODE tunable) each operand split into a
        # TF32 head and a TF32 tail and three tensor-core products summed in f32 (the tail x tail
        # term, 2**-22 of the product, dropped): never a single TF32 product
        x3 = self.dot_switch(e.args[0], e.args[1])
        return Em(f"tl.dot({x.text}, {y.text}{into}, input_precision=\"tf32x3\" if {x3} else \"ieee\")")


def join16(a: str | None, b: str | None) -> str | None:
    vals = {v for v in (a, b) if v != "*"}
    if len(vals) == 1 and None not in vals:
        v = vals.pop()
        return v if v in ("f16", "bf16") else None
    return None


def _num_type(n: Num) -> VType:
    return VType((), "f32" if isinstance(n.value, float) else "i32", weak=True)
