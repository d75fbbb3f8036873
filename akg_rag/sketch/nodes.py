"""The syntax tree of a Unified Sketch.

Every node carries its 1-based source position (``line``, ``column``) for error messages; positions
are left out of equality, so a sketch parsed from its printed form equals the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union


def _pos() -> int:
    return field(default=0, compare=False, repr=False)  # type: ignore[return-value]


# ---- expressions -------------------------------------------------------------------------------

@dataclass
class Num:
    """A numeric literal (int or float)."""

    value: int | float
    line: int = _pos()
    column: int = _pos()


@dataclass
class Str:
    """A string literal (only as the first argument of ``apply``)."""

    value: str
    line: int = _pos()
    column: int = _pos()


@dataclass
class Name:
    """A reference to a symbol, parameter, loop variable, local or dtype."""

    id: str
    line: int = _pos()
    column: int = _pos()


@dataclass
class BinOp:
    """Infix arithmetic ``left op right`` with op in + - * / // %."""

    op: str
    left: Expr
    right: Expr
    line: int = _pos()
    column: int = _pos()


@dataclass
class Neg:
    """Unary minus."""

    operand: Expr
    line: int = _pos()
    column: int = _pos()


@dataclass
class Call:
    """A compute op: ``reduce_sum(t, axis=0)``."""

    func: str
    args: list[Expr]
    kwargs: dict[str, Expr]
    line: int = _pos()
    column: int = _pos()


Expr = Union[Num, Str, Name, BinOp, Neg, Call]


@dataclass
class Slice:
    """``start:stop`` inside a tensor access."""

    start: Expr
    stop: Expr
    line: int = _pos()
    column: int = _pos()


Index = Union[Expr, Slice]


@dataclass
class Access:
    """``tensor[i, a:b, ...]``."""

    tensor: str
    indices: list[Index]
    line: int = _pos()
    column: int = _pos()


# ---- declarations ------------------------------------------------------------------------------

@dataclass
class TensorDecl:
    """``x[M, N]: f32 in``."""

    name: str
    shape: list[Expr]
    dtype: str
    direction: str
    line: int = _pos()
    column: int = _pos()


@dataclass
class ParamDecl:
    """``eps = 1e-6``: a named scalar constant."""

    name: str
    value: Expr
    line: int = _pos()
    column: int = _pos()


@dataclass
class SymbolDecl:
    """A size symbol such as ``M``."""

    name: str
    line: int = _pos()
    column: int = _pos()


# ---- statements --------------------------------------------------------------------------------

@dataclass
class Hint:
    """``@llm_hint("parallel", "core")``."""

    kind: str
    context: str
    line: int = _pos()
    column: int = _pos()


@dataclass
class For:
    """``for v in range([start,] stop[, step]):`` with its hints and body."""

    var: str
    start: Expr | None
    stop: Expr
    step: Expr | None
    body: list[Stmt]
    hints: list[Hint] = field(default_factory=list)
    line: int = _pos()
    column: int = _pos()


@dataclass
class Alloc:
    """``t = alloc([N], f32, hint="input_cache", tier="shared", init=0)``."""

    target: str
    shape: list[Expr]
    dtype: str
    role: str | None = None
    tier: str | None = None
    init: Expr | None = None
    line: int = _pos()
    column: int = _pos()


@dataclass
class Assign:
    """``t = expr``."""

    target: str
    value: Expr
    line: int = _pos()
    column: int = _pos()


@dataclass
class Load:
    """``load(x[m, 0:N] -> row)`` or ``load(x[i, j] -> v, other=0)``.

    ``other`` is the value read where an index lies outside the tensor (padding); None reads 0.
    """

    src: Access
    dst: str
    other: Expr | None = None
    line: int = _pos()
    column: int = _pos()


@dataclass
class Store:
    """``store(out -> y[m, 0:N])``."""

    src: str
    dst: Access
    line: int = _pos()
    column: int = _pos()


@dataclass
class Barrier:
    """``barrier(cnt[row], C)``: the programs of a launch that name the same element of ``cnt`` (an
    i32 ``temp`` tensor) wait for each other, ``C`` (a parameter) of them; what one of them stored
    before it, the others read after it. It stands directly in the body of a launch's innermost
    grid loop; a group is a run of consecutive grid points (see docs/lowering.md)."""

    counter: Access
    count: Expr
    line: int = _pos()
    column: int = _pos()


Stmt = Union[For, Alloc, Assign, Load, Store, Barrier]


@dataclass
class Sketch:
    """A whole sketch: name, declarations and body."""

    name: str
    symbols: list[SymbolDecl]
    tensors: list[TensorDecl]
    params: list[ParamDecl]
    body: list[Stmt]
    line: int = _pos()
    column: int = _pos()


def sub_exprs(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression inside it (pre-order; a call's keyword arguments too)."""
    yield e
    if isinstance(e, BinOp):
        yield from sub_exprs(e.left)
        yield from sub_exprs(e.right)
    elif isinstance(e, Neg):
        yield from sub_exprs(e.operand)
    elif isinstance(e, Call):
        for a in [*e.args, *e.kwargs.values()]:
            yield from sub_exprs(a)
