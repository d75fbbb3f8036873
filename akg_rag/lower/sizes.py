"""Tile extents for the backends: a size expression in canonical form, comparable and printable.

The validator compares sizes as polynomials (:mod:`akg_rag.sketch.symbolic`); a backend also needs
to *emit* them. :class:`Size` keeps both: the polynomial (equality, hashing through ``key``) and a
sketch expression tree rebuilt from it (``expr``), which a backend prints with its own expression
printer (Python ``//`` versus C++ ``/``). Non-polynomial parts (``N // 2``, ``N % 4``) are opaque
atoms of the polynomial; :func:`size_of` remembers the expression behind each atom so the tree can
be rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from akg_rag.sketch.nodes import BinOp, Call, Expr, Name, Neg, Num, Str
from akg_rag.sketch.printer import print_expr
from akg_rag.sketch.symbolic import Poly, show, to_poly


@dataclass(frozen=True)
class Size:
    """One extent of a tile (or of a tensor dimension).

    ``key`` is the canonical text of the polynomial and decides equality: ``i*BM + BM - i*BM`` and
    ``BM`` are the same size. ``expr`` is a sketch expression over symbols, tunables and numbers
    (numeric non-tunable parameters are substituted), ready to be printed by a backend.
    ``names`` are the symbols and tunables it depends on.
    """

    key: str
    expr: Expr = field(compare=False, hash=False)
    value: int | None = field(default=None, compare=False, hash=False)   # when constant
    names: tuple[str, ...] = field(default=(), compare=False, hash=False)

    @property
    def text(self) -> str:
        """Sketch text of the size (``N``, ``BM``, ``H - 2``)."""
        return print_expr(self.expr)

    @property
    def is_one(self) -> bool:
        """The constant 1 (a broadcast axis)."""
        return self.value == 1

    @property
    def may_pad(self) -> bool:
        """A backend that rounds extents up to a power of two may pad this axis (masks needed)."""
        return self.value is None or self.value < 1 or self.value & (self.value - 1) != 0

    def __repr__(self) -> str:
        return f"Size({self.text})"


def _atoms(e: Expr, out: dict[str, Expr]) -> None:
    """Record the expression behind every opaque atom ``to_poly`` would make of ``e``."""
    if isinstance(e, Neg):
        _atoms(e.operand, out)
    elif isinstance(e, BinOp):
        _atoms(e.left, out)
        _atoms(e.right, out)
        polynomial = e.op in "+-*" or (e.op == "/" and not _has_names(e.right))
        if not polynomial:
            out[f"<{print_expr(e)}>"] = e
    elif isinstance(e, (Call, Str)):
        out[f"<{print_expr(e)}>"] = e


def _has_names(e: Expr) -> bool:
    if isinstance(e, Name):
        return True
    if isinstance(e, Neg):
        return _has_names(e.operand)
    if isinstance(e, BinOp):
        return _has_names(e.left) or _has_names(e.right)
    return isinstance(e, (Call, Str))


def _factor(name: str, atoms: dict[str, Expr]) -> Expr:
    return atoms[name] if name.startswith("<") else Name(name)


def poly_expr(p: Poly, atoms: dict[str, Expr]) -> Expr:
    """A sketch expression computing polynomial ``p`` (terms with more factors first).

    A fractional coefficient ``a/b`` becomes ``(a * term) // b``: sizes are integers, so the
    division is exact wherever the sketch is meaningful.
    """
    if not p:
        return Num(0)
    out: Expr | None = None
    for mono, coef in sorted(p.items(), key=lambda kv: (-len(kv[0]), kv[0])):
        negative = coef < 0
        c = -coef if negative else coef
        term: Expr | None = None
        for name in mono:
            f = _factor(name, atoms)
            term = f if term is None else BinOp("*", term, f)
        if term is None:
            term = Num(int(c)) if c.denominator == 1 else Num(float(c))
        elif c.denominator != 1:
            scaled = term if c.numerator == 1 else BinOp("*", Num(c.numerator), term)
            term = BinOp("//", scaled, Num(c.denominator))
        elif c != 1:
            term = BinOp("*", Num(int(c)), term)
        if out is None:
            out = Neg(term) if negative else term
        else:
            out = BinOp("-" if negative else "+", out, term)
    assert out is not None
    return out


def size_of(e: Expr, params: dict[str, Expr] | None = None) -> Size:
    """The :class:`Size` of an extent expression; names in ``params`` are replaced by their value."""
    expanded = substitute(e, params or {})
    atoms: dict[str, Expr] = {}
    _atoms(expanded, atoms)
    return from_poly(to_poly(expanded), atoms)


def from_poly(p: Poly, atoms: dict[str, Expr] | None = None) -> Size:
    """The :class:`Size` of a polynomial (``atoms`` maps opaque atoms to their expressions)."""
    atoms = atoms or {}
    value: int | None = None
    if set(p) <= {()}:
        c = p.get((), Fraction(0))
        value = int(c) if c.denominator == 1 else None
    names = sorted({n for mono in p for n in mono if not n.startswith("<")}
                   | {n for mono in p for a in mono if a.startswith("<") for n in _names(atoms[a])})
    return Size(show(p), poly_expr(p, atoms), value, tuple(names))


def _names(e: Expr) -> set[str]:
    if isinstance(e, Name):
        return {e.id}
    if isinstance(e, Neg):
        return _names(e.operand)
    if isinstance(e, BinOp):
        return _names(e.left) | _names(e.right)
    if isinstance(e, Call):
        out: set[str] = set()
        for a in e.args:
            out |= _names(a)
        return out
    return set()


def substitute(e: Expr, values: dict[str, Expr]) -> Expr:
    """``e`` with every name in ``values`` replaced by its expression (recursively)."""
    if isinstance(e, Name) and e.id in values:
        return substitute(values[e.id], values)
    if isinstance(e, Neg):
        return Neg(substitute(e.operand, values), e.line, e.column)
    if isinstance(e, BinOp):
        return BinOp(e.op, substitute(e.left, values), substitute(e.right, values), e.line, e.column)
    return e


def const_size(n: int) -> Size:
    """The constant size ``n``."""
    return from_poly(to_poly(Num(n)))


ONE = const_size(1)   # the broadcast extent
