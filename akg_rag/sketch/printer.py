"""Canonical text of a sketch: ``parse_sketch(print_sketch(s)) == s`` for every valid tree."""

from __future__ import annotations

from akg_rag.sketch.nodes import (
    Access, Alloc, Assign, Barrier, BinOp, Call, Expr, For, Index, Load, Name, Neg, Num, Sketch, Slice, Stmt,
    Store, Str,
)

INDENT = "  "
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2}


def _number(value: int | float) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    # inf and nan print as the built-in names the parser reads back (see vocab.CONSTANTS)
    return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(text, text)


def print_expr(e: Expr, parent: int = 0, right: bool = False) -> str:
    """Text of an expression, with the parentheses its precedence needs and no more."""
    if isinstance(e, Num):
        text = _number(e.value)
        return f"({text})" if text.startswith("-") and parent else text
    if isinstance(e, Str):
        return f'"{e.value}"'
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Neg):
        text = f"-{print_expr(e.operand, 3)}"
        return f"({text})" if parent else text
    if isinstance(e, Call):
        parts = [print_expr(a) for a in e.args] + [f"{k}={print_expr(v)}" for k, v in e.kwargs.items()]
        return f"{e.func}({', '.join(parts)})"
    if isinstance(e, BinOp):
        prec = _PRECEDENCE[e.op]
        text = f"{print_expr(e.left, prec)} {e.op} {print_expr(e.right, prec, right=True)}"
        # left-associative: a right operand of equal precedence needs parentheses
        needs = prec < parent or (right and prec == parent)
        return f"({text})" if needs else text
    raise TypeError(f"not an expression: {e!r}")


def _index(i: Index) -> str:
    if isinstance(i, Slice):
        return f"{print_expr(i.start)}:{print_expr(i.stop)}"
    return print_expr(i)


def _access(a: Access) -> str:
    return f"{a.tensor}[{', '.join(_index(i) for i in a.indices)}]"


def _stmt(s: Stmt, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    if isinstance(s, For):
        for h in s.hints:
            out.append(f'{pad}@llm_hint("{h.kind}", "{h.context}")')
        args = [s.stop] if s.start is None else [s.start, s.stop] + ([s.step] if s.step is not None else [])
        out.append(f"{pad}for {s.var} in range({', '.join(print_expr(a) for a in args)}):")
        for inner in s.body:
            _stmt(inner, depth + 1, out)
    elif isinstance(s, Alloc):
        parts = [f"[{', '.join(print_expr(d) for d in s.shape)}]", s.dtype]
        if s.role is not None:
            parts.append(f'hint="{s.role}"')
        if s.tier is not None:
            parts.append(f'tier="{s.tier}"')
        if s.init is not None:
            parts.append(f"init={print_expr(s.init)}")
        out.append(f"{pad}{s.target} = alloc({', '.join(parts)})")
    elif isinstance(s, Assign):
        out.append(f"{pad}{s.target} = {print_expr(s.value)}")
    elif isinstance(s, Load):
        other = "" if s.other is None else f", other={print_expr(s.other)}"
        out.append(f"{pad}load({_access(s.src)} -> {s.dst}{other})")
    elif isinstance(s, Store):
        out.append(f"{pad}store({s.src} -> {_access(s.dst)})")
    elif isinstance(s, Barrier):
        out.append(f"{pad}barrier({_access(s.counter)}, {print_expr(s.count)})")
    else:
        raise TypeError(f"not a statement: {s!r}")


def print_stmt(s: Stmt) -> str:
    """Canonical text of one statement (a loop with its body), without indentation."""
    out: list[str] = []
    _stmt(s, 0, out)
    return "\n".join(out)


def print_sketch(sketch: Sketch) -> str:
    """Canonical text of ``sketch`` (two-space indentation, one declaration line per kind)."""
    out = [f"sketch {sketch.name} {{"]
    if sketch.symbols:
        out.append(f"{INDENT}symbols: {', '.join(s.name for s in sketch.symbols)}")
    if sketch.tensors:
        decls = [f"{t.name}[{', '.join(print_expr(d) for d in t.shape)}]: {t.dtype} {t.direction}"
                 for t in sketch.tensors]
        out.append(f"{INDENT}tensors: {'; '.join(decls)}")
    if sketch.params:
        out.append(f"{INDENT}params: {', '.join(f'{p.name} = {print_expr(p.value)}' for p in sketch.params)}")
    if sketch.body:
        out.append("")
    for s in sketch.body:
        _stmt(s, 1, out)
    out.append("}")
    return "\n".join(out) + "\n"
