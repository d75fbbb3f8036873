"""Backend-neutral analysis of a validated sketch, shared by the Triton and C++ backends.

:func:`analyze` turns a sketch that passed :func:`akg_rag.sketch.validate_sketch` into a
:class:`TypedSketch` (docs/lowering.md, "Kernel semantics of a sketch"):

* the launches: each top-level parallel loop, with directly nested parallel loops joined into its
  grid (:class:`GridAxis` gives each axis's range and iteration count);
* the type of every expression and local (:class:`VType`): its shape as a tuple of
  :class:`~akg_rag.lower.sizes.Size` (printable size expressions; ``Size.may_pad`` tells whether a
  power-of-two backend pads the axis), its compute dtype and element class;
* for every defining statement the value's type and the local's type (a backend converts the
  first to the second: size-1 axes dropped or inserted, dtype cast), and the loop-carried locals
  of every sequential loop;
* the tensors each launch reads and writes, the symbols and tunables it needs, the host's symbol
  bindings (symbol -> (tensor, dim)) and the tunables (UPPER_CASE integer parameters).

Whatever the lowering cannot handle raises ``SketchError`` at the offending node: a top-level
statement that is not a parallel loop, a non-rectangular grid, a tile extent that depends on a
loop variable or a run-time value, a local whose shape or dtype changes inside a loop, a symbol no
input or output tensor dimension binds.

Typing rules. Loads convert up: f16/bf16/f32 compute in f32, f64 in f64, 8/16/32-bit integers in
i32, i64 in i64, bool stays bool. Literals and numeric parameters are *weak*: they take the other
operand's dtype. Arithmetic promotes bool < int < float and takes the widest strong width; ``div``,
``/``, transcendental ops and ``reduce_mean`` give floats; comparisons, ``logical_*``, ``isnan``,
``isinf`` and ``signbit`` give bool; ``reduce_argmax/argmin`` give i32 (a position inside a tile). A local's
shape is fixed by its first definition (later values are reshaped to it); its dtype is the alloc's
(converted) or, for a local made by assignment, the promotion of every value assigned to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from akg_rag.errors import SketchError
from akg_rag.lower.infer import Definition, Typer, VType, compute_dtype
from akg_rag.lower.sizes import Size, size_of, substitute
from akg_rag.sketch.nodes import (
    Access, BinOp, Expr, For, Name, Neg, Num, Sketch, Stmt, TensorDecl,
)

__all__ = ["GridAxis", "Launch", "Definition", "TypedSketch", "VType", "analyze", "compute_dtype"]


@dataclass
class GridAxis:
    """One parallel loop of a launch's grid: ``for var in range(start, stop, step)``.

    ``count`` is the number of iterations as a sketch expression (``cdiv(stop - start, step)``);
    a backend clamps it at 0. Bounds use symbols, tunables and numbers only (the grid is
    rectangular)."""

    var: str
    start: Expr
    stop: Expr
    step: Expr
    count: Expr
    loop: For


@dataclass
class Launch:
    """One kernel launch: a grid of programs, each running ``body`` once."""

    index: int
    grid: list[GridAxis]            # outermost first
    body: list[Stmt]                # what one grid point runs
    reads: list[str] = field(default_factory=list)     # tensors loaded, declaration order
    writes: list[str] = field(default_factory=list)    # tensors stored, declaration order
    symbols: list[str] = field(default_factory=list)   # symbols the kernel's code uses
    tunables: list[str] = field(default_factory=list)  # tunables the kernel's code uses

    @property
    def tensors(self) -> list[str]:
        """Every tensor the launch touches (reads first-declared order, then writes)."""
        return self.reads + [t for t in self.writes if t not in self.reads]


@dataclass
class TypedSketch:
    """The result of :func:`analyze`; look types up by node with :meth:`type_of`."""

    sketch: Sketch
    launches: list[Launch]
    params: dict[str, Expr]                      # every parameter's value expression
    tunables: dict[str, int]                     # UPPER_CASE int parameter -> default value
    bindings: dict[str, tuple[str, int]]         # symbol -> (non-temp tensor, dim) that binds it
    shapes: dict[str, tuple[Size, ...]]          # every tensor's declared shape
    types: dict[int, VType] = field(repr=False, default_factory=dict)
    definitions: dict[int, Definition] = field(repr=False, default_factory=dict)
    carried: dict[int, list[str]] = field(repr=False, default_factory=dict)
    matmuls: list[Expr] = field(repr=False, default_factory=list)   # every matmul call

    def type_of(self, node: Expr | Access) -> VType:
        """Type of an expression (also index expressions and slice bounds) or of an access."""
        try:
            return self.types[id(node)]
        except KeyError:
            raise KeyError(f"no type recorded for {node!r}") from None

    def definition(self, stmt: Stmt) -> Definition:
        """How an Alloc, Assign or Load statement changes its local."""
        return self.definitions[id(stmt)]

    def loop_carried(self, loop: For) -> list[str]:
        """Locals defined before a sequential loop and assigned inside it, first-assigned order."""
        return self.carried.get(id(loop), [])

    def tensor(self, name: str) -> TensorDecl:
        """The declaration of tensor ``name``."""
        return next(t for t in self.sketch.tensors if t.name == name)

    @property
    def arguments(self) -> list[TensorDecl]:
        """The host function's tensor arguments: every non-temp tensor, declaration order."""
        return [t for t in self.sketch.tensors if t.direction != "temp"]

    @property
    def temps(self) -> list[TensorDecl]:
        """Tensors the host function allocates for one call."""
        return [t for t in self.sketch.tensors if t.direction == "temp"]


def _fail(message: str, node: object) -> SketchError:
    return SketchError(message, getattr(node, "line", 0), getattr(node, "column", 0))


def is_tunable(name: str, value: Expr) -> bool:
    """An UPPER_CASE parameter with an integer literal value (the search may change it)."""
    return (name.upper() == name and any(c.isalpha() for c in name)
            and isinstance(value, Num) and isinstance(value.value, int) and not isinstance(value.value, bool))


def _parallel(s: Stmt) -> bool:
    return isinstance(s, For) and any(h.kind == "parallel" for h in s.hints)


def _names(e: Expr | None) -> set[str]:
    if e is None:
        return set()
    if isinstance(e, Name):
        return {e.id}
    if isinstance(e, Neg):
        return _names(e.operand)
    if isinstance(e, BinOp):
        return _names(e.left) | _names(e.right)
    return set()


def _grid(top: For, index: int, values: dict[str, Expr], allowed: set[str]) -> Launch:
    axes: list[GridAxis] = []
    loop: For = top
    while True:
        for e in (loop.start, loop.stop, loop.step):
            bad = _names(e) - allowed
            if bad:
                raise _fail(f"bounds of parallel loop {loop.var!r} use {', '.join(sorted(bad))}; "
                            "a grid must be rectangular (symbols, parameters and numbers only)", e or loop)
        start = loop.start if loop.start is not None else Num(0)
        step = loop.step if loop.step is not None else Num(1)
        if isinstance(step, Num) and step.value <= 0:
            raise _fail(f"parallel loop {loop.var!r} needs a positive step", step)
        span = BinOp("-", loop.stop, start)
        if not (isinstance(step, Num) and step.value == 1):
            span = BinOp("+", span, BinOp("-", step, Num(1)))
        count = size_of(span, values).expr
        if not (isinstance(step, Num) and step.value == 1):
            count = BinOp("//", count, substitute(step, values))
        axes.append(GridAxis(loop.var, start, loop.stop, step, count, loop))
        if len(loop.body) == 1 and _parallel(loop.body[0]):
            loop = loop.body[0]  # type: ignore[assignment]
            continue
        return Launch(index, axes, loop.body)


def _bindings(sk: Sketch) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for t in sk.tensors:
        if t.direction == "temp":
            continue
        for d, e in enumerate(t.shape):
            if isinstance(e, Name) and e.id not in out and any(s.name == e.id for s in sk.symbols):
                out[e.id] = (t.name, d)
    for s in sk.symbols:
        if s.name not in out:
            raise _fail(f"symbol {s.name!r} is not a whole dimension of any input or output tensor, "
                        "so the host cannot bind it", s)
    return out


def analyze(sketch: Sketch) -> TypedSketch:
    """Analyse a validated sketch for lowering; raise ``SketchError`` for what cannot be lowered."""
    params = {p.name: p.value for p in sketch.params}
    tunables = {p.name: int(p.value.value) for p in sketch.params  # type: ignore[union-attr]
                if is_tunable(p.name, p.value)}
    # sizes keep tunables symbolic (the search changes them) and substitute every other parameter
    values = {k: v for k, v in params.items() if k not in tunables}
    symbols = {s.name for s in sketch.symbols}
    bindings = _bindings(sketch)
    shapes = {t.name: tuple(_dim(e, values, symbols | set(tunables)) for e in t.shape)
              for t in sketch.tensors}
    launches: list[Launch] = []
    for s in sketch.body:
        if not _parallel(s):
            raise _fail("a top-level statement must be a loop marked @llm_hint(\"parallel\", ...): "
                        "each one is a kernel launch", s)
        launches.append(_grid(s, len(launches), values, symbols | set(params)))  # type: ignore[arg-type]
    typed = TypedSketch(sketch, launches, params, tunables, bindings, shapes)
    Typer(typed, values, symbols).run()
    return typed


def _dim(e: Expr, values: dict[str, Expr], allowed: set[str]) -> Size:
    size = size_of(e, values)
    bad = set(size.names) - allowed
    if bad:
        raise _fail(f"tensor dimension {size.text} uses {', '.join(sorted(bad))}; "
                    "only symbols, parameters and numbers may size a tensor", e)
    return size


def slice_extent(start: Expr, stop: Expr, values: dict[str, Expr]) -> Size:
    """The extent ``stop - start`` of a slice, simplified (``i*B : i*B + B`` has extent ``B``)."""
    return size_of(BinOp("-", stop, start), values)

