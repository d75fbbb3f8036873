"""What every region emitter shares: the sketch being written, Expr trees as sketch text, index
decomposition and tile fitting.

Conventions of the emitted sketches (docs/lowering.md):

* tensors are the region's inputs then its outputs, named by ``Value.name``; a 0-d tensor is
  declared ``[1]`` (the host passes it viewed as one element) and indexed with 0;
* every size is a symbol; an input dimension of size 1 that the region broadcasts is declared
  ``1`` and indexed with 0;
* task attributes (stride, padding, kernel size, constants of an Expr) are literals; tunables
  (block sizes) are UPPER_CASE params whose defaults suit the captured shapes;
* every value of an expression carries its *deps*: the tile axes it varies along (``"k"`` kept
  elements, ``"r"`` reduced elements, ``"m"``/``"n"`` GEMM rows/columns, ``"t"`` a flat block).
  Before a store or a reduction, a value missing an axis is broadcast with ``where(mask, v, v)``;
* an ``index`` leaf is the emitter's index tile (or scalar) of that domain dim; a ``gather`` leaf is
  a gather load ``load(x[a, b] -> g, other=c)`` with its index Exprs as int tiles; an input read
  only by gathers is declared with its own size symbols (``G0, G1, ...``), not the region's.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from akg_rag.lower.region import Expr, Value, plain_inputs
from akg_rag.sketch.vocab import COMPUTE_OPS, DTYPES, TORCH_DTYPES

Deps = frozenset  # frozenset[str]
NO_DEPS: Deps = frozenset()

# words the sketch grammar or the validator reads specially: never a name we make
RESERVED = {"sketch", "symbols", "tensors", "params", "for", "in", "range", "load", "store", "alloc",
            "hint", "tier", "init", "other", "axis", "keepdim", "inf", "nan", "llm_hint",
            "out", "inout", "temp", *DTYPES, *COMPUTE_OPS}


def sketch_dtype(torch_dtype: str) -> str:
    """The sketch dtype of a torch dtype name ("float32" -> "f32")."""
    if torch_dtype not in TORCH_DTYPES:
        raise ValueError(f"dtype {torch_dtype!r} has no sketch dtype; allowed: {', '.join(TORCH_DTYPES)}")
    return TORCH_DTYPES[torch_dtype]


def next_pow2(n: int) -> int:
    """The smallest power of two >= n (>= 1)."""
    p = 1
    while p < n:
        p *= 2
    return p


def prod_text(parts: Iterable[str]) -> str:
    """``A * B * C`` (``1`` for none)."""
    parts = [p for p in parts if p != "1"]
    return " * ".join(parts) if parts else "1"


def cdiv_text(a: str, b: str) -> str:
    """``((a + b - 1) // b)``: parenthesised, so it multiplies safely."""
    return f"(({a} + {b} - 1) // {b})"


class SketchWriter:
    """Declarations and body lines of one sketch; hands out names that collide with nothing."""

    def __init__(self, name: str, values: Iterable[Value]) -> None:
        self.name = name
        self.taken = set(RESERVED)
        for v in values:
            if v.name in RESERVED or not v.name.isidentifier():
                raise ValueError(f"value name {v.name!r} cannot name a sketch tensor (reserved or not an identifier)")
            self.taken.add(v.name)
        self.symbols: list[str] = []
        self.tensors: list[str] = []
        self.declared: set[str] = set()
        self.dims: dict[str, list[str]] = {}    # tensor -> its declared dims
        self.params: dict[str, str] = {}
        self.lines: list[str] = []

    def fresh(self, base: str) -> str:
        """A new local (or symbol) name starting with ``base``."""
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return name

    def symbol(self, base: str) -> str:
        name = self.fresh(base)
        self.symbols.append(name)
        return name

    def param(self, base: str, value: int | float) -> str:
        name = self.fresh(base)
        self.params[name] = repr(value)
        return name

    def tensor(self, v: Value, dims: list[str], direction: str) -> None:
        if v.name in self.declared:
            return  # a value both read and written, or read twice: one declaration
        self.declared.add(v.name)
        self.dims[v.name] = list(dims)
        self.tensors.append(f"{v.name}[{', '.join(dims or ['1'])}]: {sketch_dtype(v.dtype)} {direction}")

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def loop(self, depth: int, var: str, rng: str, kind: str | None = None, context: str = "grid",
             more: tuple[tuple[str, str], ...] = ()) -> None:
        """``for var in range(rng):`` after its hints: ``kind``/``context``, then ``more`` pairs."""
        for k, c in ((kind, context), *more):
            if k:
                self.emit(depth, f'@llm_hint("{k}", "{c}")')
        self.emit(depth, f"for {var} in range({rng}):")

    def text(self) -> str:
        head = [f"sketch {self.name} {{"]
        if self.symbols:
            head.append(f"  symbols: {', '.join(self.symbols)}")
        head.append(f"  tensors: {'; '.join(self.tensors)}")
        if self.params:
            head.append(f"  params: {', '.join(f'{k} = {v}' for k, v in self.params.items())}")
        return "\n".join(head + [""] + self.lines + ["}"]) + "\n"


def const_text(value: float | int | bool, dtype: str | None = None) -> str:
    """A constant as sketch text (bools as ``cast(1, bool)``; floats exactly, by ``repr``)."""
    if isinstance(value, bool) or dtype == "bool":
        return f"cast({int(bool(value))}, bool)"
    if isinstance(value, int) and (dtype is None or not dtype.startswith(("float", "bfloat"))):
        return str(value)
    f = float(value)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    return repr(f)


Leaf = Callable[[Expr], tuple[str, Deps]]


class ExprWriter:
    """Writes Expr trees as sketch expressions at one depth: a subtree used more than once becomes
    a local (common subexpressions are computed once); leaves come from ``leaf``, ``index`` leaves
    from ``pos`` when given (per domain dim: the index text and its deps, None where the dim has no
    index here; else from ``leaf``), ``gather`` leaves become gather loads."""

    def __init__(self, w: SketchWriter, depth: int, leaf: Leaf,
                 pos: list[tuple[str, Deps] | None] | None = None) -> None:
        self.w, self.depth, self.leaf, self.pos = w, depth, leaf, pos
        self.memo: dict[Expr, tuple[str, Deps]] = {}
        self.uses: Counter = Counter()

    def prepare(self, exprs: Iterable[Expr]) -> None:
        """Count the uses of every subtree of the expressions about to be written."""
        def walk(e: Expr) -> None:
            self.uses[e] += 1
            if self.uses[e] == 1:
                for a in e.args:
                    walk(a)
        for e in exprs:
            walk(e)

    def write(self, e: Expr) -> tuple[str, Deps]:
        """Sketch text of ``e`` and its deps."""
        if e in self.memo:
            return self.memo[e]
        if e.op == "const":
            out = (const_text(e.value, e.dtype), NO_DEPS)  # type: ignore[arg-type]
        elif e.op in ("input", "acc", "reduced", "numel"):
            out = self.leaf(e)
        elif e.op == "index" and self.pos is None:
            out = self.leaf(e)  # the emitter's leaf function knows its index tiles
        elif e.op == "index":
            d = int(e.value)  # type: ignore[arg-type]
            if not 0 <= d < len(self.pos) or self.pos[d] is None:
                raise ValueError(f"no position along dim {d} here")
            out = self.pos[d]  # type: ignore[assignment]
        elif e.op == "gather":
            out = self.gather(e)
        else:
            parts = [self.write(a) for a in e.args]
            deps = frozenset().union(*[d for _, d in parts]) if parts else NO_DEPS
            args = [t for t, _ in parts]
            if e.op == "cast":
                args.append(sketch_dtype(e.dtype or "float32"))
            text = f"{e.op}({', '.join(args)})"
            if self.uses[e] > 1:
                name = self.w.fresh("e")
                self.w.emit(self.depth, f"{name} = {text}")
                text = name
            out = (text, deps)
        self.memo[e] = out
        return out

    def gather(self, e: Expr) -> tuple[str, Deps]:
        """``load(x[i0, i1, ...] -> g, other=c)``: every index bound to a local first."""
        if e.ref not in self.w.dims:
            raise ValueError(f"gathered tensor {e.ref!r} is not declared")
        if len(e.args) != len(self.w.dims[e.ref]) and (e.args or self.w.dims[e.ref] != ["1"]):
            raise ValueError(f"gather of {e.ref!r} has {len(e.args)} indices for {len(self.w.dims[e.ref])} dims")
        parts, deps = [], NO_DEPS
        for a in e.args:
            text, d = self.write(a)
            if not (text.isidentifier() or text.lstrip("-").isdigit()):
                name = self.w.fresh("gi")
                self.w.emit(self.depth, f"{name} = {text}")
                text = name
            parts.append(text)
            deps = deps | d
        local = self.w.fresh(f"{e.ref}_g")
        other = "" if e.value is None else f", other={const_text(e.value)}"  # type: ignore[arg-type]
        self.w.emit(self.depth, f"load({e.ref}[{', '.join(parts or ['0'])}] -> {local}{other})")
        return local, deps

    def bind(self, e: Expr, base: str) -> tuple[str, Deps]:
        """Write ``e`` and bind it to a fresh local (so later statements can name it)."""
        text, deps = self.write(e)
        if text.isidentifier():
            return text, deps
        name = self.w.fresh(base)
        self.w.emit(self.depth, f"{name} = {text}")
        return name, deps


def fit(text: str, deps: Deps, need: Iterable[str], masks: dict[str, str]) -> str:
    """``text`` broadcast to every axis in ``need`` it lacks: ``where(mask, v, v)`` keeps the value
    and takes the shape of the masks of the missing axes."""
    missing = [masks[a] for a in need if a not in deps]
    if not missing:
        return text
    cond = missing[0]
    for m in missing[1:]:
        cond = f"logical_and({cond}, {m})"
    return f"where({cond}, {text}, {text})"


def decompose(w: SketchWriter, depth: int, flat: str, dims: list[str], names: list[str]) -> list[str]:
    """Split the row-major flat index ``flat`` over ``dims`` into one index per dim (returned as
    local names built from ``names``). The outermost index is not wrapped, so a flat index past
    the end stays out of range (its loads read ``other``, its stores are skipped)."""
    out: list[str] = [""] * len(dims)
    rest = flat
    for i in range(len(dims) - 1, 0, -1):
        out[i] = w.fresh(names[i])
        w.emit(depth, f"{out[i]} = {rest} % {dims[i]}")
        q = w.fresh("q")
        w.emit(depth, f"{q} = {rest} // {dims[i]}")
        rest = q
    if dims:
        out[0] = rest
    return out


def align(v: Value, shape: tuple[int, ...], broadcast: frozenset[int] = frozenset()) -> list[int | None]:
    """For each dim of ``v``: the region dim it maps to (right-aligned), None where ``v`` broadcasts
    (size 1 against a larger region dim, or against a region dim in ``broadcast`` whatever its
    size). Raises ValueError for shapes that do not broadcast."""
    off = len(shape) - len(v.shape)
    if off < 0:
        raise ValueError(f"{v.name} {v.shape} has more dims than the region {shape}")
    out: list[int | None] = []
    for j, size in enumerate(v.shape):
        d = off + j
        if size == shape[d] and not (size == 1 and d in broadcast):
            out.append(d)
        elif size == 1:
            out.append(None)
        else:
            raise ValueError(f"{v.name} {v.shape} does not broadcast to {shape}")
    return out


def declare_input(w: SketchWriter, v: Value, shape: tuple[int, ...], syms: list[str],
                  broadcast: frozenset[int] = frozenset()) -> list[int | None]:
    """Declare ``v`` as an ``in`` tensor broadcasting to a region of ``shape`` (dims ``syms``;
    ``broadcast``: see :func:`align`)."""
    amap = align(v, shape, broadcast)
    w.tensor(v, [syms[d] if d is not None else "1" for d in amap], "in")
    return amap


def declare_inputs(w: SketchWriter, inputs: Iterable[Value], exprs: Iterable[Expr],
                   shape: tuple[int, ...], syms: list[str],
                   broadcast: dict[str, frozenset[int]] | None = None) -> dict[str, list[int | None]]:
    """Declare a region's inputs: those some expression reads as a plain ``input`` leaf broadcast
    to the region (their dim maps are returned), the others -- read only by ``gather`` leaves --
    with size symbols of their own. ``broadcast``: per input name, region dims its size-1 dims
    broadcast over even where the region has size 1 too (see :func:`align`)."""
    plain = plain_inputs(list(exprs))
    amaps: dict[str, list[int | None]] = {}
    for v in inputs:
        if v.name in plain:
            amaps[v.name] = declare_input(w, v, shape, syms, (broadcast or {}).get(v.name, frozenset()))
        elif v.name not in w.declared:
            w.tensor(v, [w.symbol("G") if s != 1 else "1" for s in v.shape], "in")
    return amaps


def pin_unbound(w: SketchWriter, syms: list[str], shape: tuple[int, ...]) -> list[str]:
    """``syms`` with every symbol that no declared tensor has as a whole dim replaced by its
    captured size (a reduced dim whose inputs are all gathered, as ``emb(ids).sum(-1)`` reads the
    table by ids: no tensor spans that dim, so the host could not bind its symbol). Call after
    the declarations, before any body text uses the symbols."""
    used = {d for dims in w.dims.values() for d in dims}
    out = []
    for sym, size in zip(syms, shape):
        if sym in w.symbols and sym not in used:
            w.symbols.remove(sym)
            sym = str(size)
        out.append(sym)
    return out


def access(v: Value, amap: list[int | None], idx: list[str]) -> str:
    """``v[...]`` with the region index ``idx[d]`` for mapped dims, 0 for broadcast ones."""
    parts = [idx[d] if d is not None else "0" for d in amap]
    return f"{v.name}[{', '.join(parts or ['0'])}]"


def expr_dtype(e: Expr, dtypes: dict[str, str]) -> str:
    """A rough result kind of ``e``: "float", "int" or "bool" (for accumulator dtypes)."""
    if e.op == "input":
        d = dtypes.get(e.ref or "", "float32")
        return "bool" if d == "bool" else ("float" if "float" in d else "int")
    if e.op == "const":
        return "bool" if isinstance(e.value, bool) else ("int" if isinstance(e.value, int) else "float")
    if e.op == "cast":
        d = e.dtype or "float32"
        return "bool" if d == "bool" else ("float" if "float" in d else "int")
    if e.op in ("gt", "ge", "lt", "le", "eq", "ne", "logical_and", "logical_or", "logical_not",
                "isnan", "isinf", "signbit"):
        return "bool"
    if e.op in ("numel", "index"):
        return "int"
    if e.op.startswith("bitwise_"):   # bits of integers; of bools (the emitters' own), bool
        kinds = {expr_dtype(a, dtypes) for a in e.args}
        return "bool" if kinds == {"bool"} else "int"
    if e.op == "gather":
        d = dtypes.get(e.ref or "", "float32")
        return "bool" if d == "bool" else ("float" if "float" in d else "int")
    if e.op in ("acc", "reduced"):
        return "float"
    kinds = {expr_dtype(a, dtypes) for a in (e.args[1:] if e.op == "where" else e.args)}
    if e.op in ("div", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "erf") or "float" in kinds:
        return "float"
    return "int" if "int" in kinds or "bool" in kinds else "float"
