"""Symbolic sizes: expressions over symbols as polynomials, so ``m*B + B - m*B`` equals ``B``.

A size is a mapping from monomials (sorted tuples of symbol names; ``()`` is the constant term) to
exact rational coefficients. What is not polynomial (``a // b``, ``a % b``, division by a symbol, a
compute op) becomes an opaque atom named by its printed text, compared by name.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from akg_rag.sketch.nodes import BinOp, Call, Expr, Name, Neg, Num, Str
from akg_rag.sketch.printer import print_expr

Poly = dict[tuple[str, ...], Fraction]


def const(value: int | float | Fraction) -> Poly:
    """The constant polynomial ``value``."""
    return _clean({(): Fraction(value)})


def _clean(p: Poly) -> Poly:
    return {m: c for m, c in p.items() if c != 0}


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, Fraction(0)) + sign * c
    return _clean(out)


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, Fraction(0)) + ca * cb
    return _clean(out)


def to_poly(e: Expr, values: Mapping[str, int | float] | None = None) -> Poly:
    """Polynomial of an index/size expression; names in ``values`` are replaced by their number."""
    values = values or {}
    if isinstance(e, Num):
        return const(e.value)
    if isinstance(e, Name):
        if e.id in values:
            return const(values[e.id])
        return {(e.id,): Fraction(1)}
    if isinstance(e, Neg):
        return _add({}, to_poly(e.operand, values), -1)
    if isinstance(e, BinOp):
        a, b = to_poly(e.left, values), to_poly(e.right, values)
        if e.op == "+":
            return _add(a, b)
        if e.op == "-":
            return _add(a, b, -1)
        if e.op == "*":
            return _mul(a, b)
        if e.op == "/" and set(b) <= {()} and b:
            return _mul(a, const(1 / b[()]))
    if isinstance(e, (BinOp, Call, Str)):
        return {(f"<{print_expr(e)}>",): Fraction(1)}
    raise TypeError(f"not an expression: {e!r}")


def is_one(p: Poly) -> bool:
    """True for the constant 1."""
    return p == {(): Fraction(1)}


def show(p: Poly) -> str:
    """Readable text of a polynomial (for error messages)."""
    if not p:
        return "0"
    terms = []
    for m, c in sorted(p.items(), key=lambda kv: (-len(kv[0]), kv[0])):
        coef = "" if c == 1 and m else ("-" if c == -1 and m else str(c))
        terms.append(coef + ("*" if coef not in ("", "-") and m else "") + "*".join(m))
    return " + ".join(terms).replace("+ -", "- ")


def squeeze(shape: list[Poly]) -> list[Poly]:
    """Drop the size-1 dimensions (tiles of shape [1, N] and [N] hold the same data)."""
    return [d for d in shape if not is_one(d)]


def show_shape(shape: list[Poly]) -> str:
    """``[M, N]``."""
    return "[" + ", ".join(show(d) for d in shape) + "]"
