"""A cooperative launch whose barrier's wait lies behind the next grid point's loads (host: ``PIPE``).

A launch with one barrier (the reduction emitter's cooperative form, akg_rag.lower.emit.coop) runs
as written: a program loads its chunk, stores its partials, arrives, and waits for its row's other
programs before it writes anything; while it waits it has no load in flight. On an H200 those
launches reach 65-74% of the copy rate against 85-90% on an H100: faster memory does not shorten
the wait. With ``PIPE`` > 0 the host launches ``PIPE`` programs a multiprocessor (at most the grid),
and each loops over tickets: it runs the statements before the barrier for its next grid point
(loads, partials, arrival) and only then waits for the row of the grid point it holds and runs the
statements after the barrier for that one, so one grid point's loads lie between every arrival
and the wait on it.

No deadlock: a program waits only once both grid points it holds have arrived. While every
running program waits, the lowest row waited on has all its ticketed grid points arrived, and it
lacks one only if every running program holds two of its grid points (tickets are taken in order,
so none is held past it), which needs a barrier count above twice the running programs; the host
keeps the count at most the SM count and launches at least one program an SM (or the whole grid).
A ticket past the grid runs the statements before the barrier on the grid's last point (its loads
in bounds) with every store skipped, and does not arrive.
"""

from __future__ import annotations

import ast
import textwrap
from typing import TYPE_CHECKING

from akg_rag.sketch.nodes import For

if TYPE_CHECKING:
    from akg_rag.lower.triton_kernel import KernelWriter

DEFAULT_PIPE = 0   # programs a multiprocessor of a pipelined cooperative launch; 0: as written
HINTED_PIPE = 3    # ... the default where the launch's grid loop is hinted ``pipeline`` (emit/coop.py)
PIPE_MAX = 8
INDENT = "    "


def pipe_default(kernels: list[KernelWriter]) -> int:
    """The ``PIPE`` a module ships with: ``HINTED_PIPE`` where a pipelined launch's grid loop is
    hinted ``pipeline`` (the emitter knows its chunk is short enough to pay), else off."""
    hinted = any(kw.piped and any(h.kind == "pipeline" for h in kw.launch.grid[0].loop.hints) for kw in kernels)
    return HINTED_PIPE if hinted else DEFAULT_PIPE


def pipelinable(kw: KernelWriter) -> bool:
    """A launch this form applies to: one barrier, one grid axis, no loop in its body, no other
    versioning of its statements (interior versions, re-read rows)."""
    return (len(kw.barriers) == 1 and len(kw.launch.grid) == 1 and not kw.reread and not kw.versioned
            and not any(isinstance(s, For) for s in kw.launch.body))


class _Names(ast.NodeVisitor):
    def __init__(self) -> None:
        self.stored: list[str] = []
        self.loaded: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            if node.id not in self.stored:
                self.stored.append(node.id)
        else:
            self.loaded.add(node.id)


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(self.names.get(node.id, node.id), node.ctx), node)


def _tree(lines: list[str]) -> ast.Module:
    return ast.parse(textwrap.dedent("\n".join(lines)) + "\n")


def _names(lines: list[str]) -> _Names:
    v = _Names()
    if lines:
        v.visit(_tree(lines))
    return v


def _renamed(lines: list[str], names: dict[str, str]) -> list[str]:
    """``lines`` (complete statements at one indentation) with the variables of ``names``
    renamed, unindented; comments dropped."""
    if not lines:
        return []
    return ast.unparse(_Rename(names).visit(_tree(lines))).splitlines()


def _guarded(lines: list[str], test: str) -> list[str]:
    """``lines`` (unindented statements) with every bare call among them (a store, an atomic)
    under ``if test:``, so a ticket past the grid writes nothing."""
    tree = _tree(lines)
    body: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            stmt = ast.If(test=ast.parse(test, mode="eval").body, body=[stmt], orelse=[])
        body.append(stmt)
    return ast.unparse(ast.fix_missing_locations(ast.Module(body, []))).splitlines() if lines else []


def _at(lines: list[str], depth: int) -> list[str]:
    """Statements written at depth 1 (the kernel body), moved to ``depth`` (relative: the
    kernel writer indents the whole form once more)."""
    out = []
    for line in lines:
        out.append(INDENT * (depth - 1) + line if line.startswith(INDENT) else INDENT * depth + line)
    return out


def _names_of(node: ast.AST) -> _Names:
    v = _Names()
    v.visit(node)
    return v


def _split(stmts: list[ast.stmt]) -> tuple[list[str], set[str]] | None:
    """One pass over the statements before the barrier: the names they set, in order, and those
    set from memory (by a load or an atomic, or from such a name; the rest is index arithmetic,
    cheaper to redo than to keep). None where a statement reads one of those names before any
    of them sets it (its value comes from before them: the next grid point's copy could not
    rename it)."""
    seen = [(stmt, _names_of(stmt)) for stmt in stmts]
    every = {n for _, v in seen for n in v.stored} - {"pid"}
    stored: list[str] = []
    held: set[str] = set()
    for stmt, v in seen:
        if (v.loaded & every) - set(stored):
            return None
        reads = any(isinstance(n, ast.Attribute) and n.attr.startswith(("load", "atomic")) for n in ast.walk(stmt))
        if reads or v.loaded & held or not isinstance(stmt, ast.Assign):
            held.update(v.stored)
        stored += [n for n in v.stored if n not in stored]
    return stored, held


def pipe_lines(kw: KernelWriter, decomp: list[str], body: list[str], total: str) -> list[str] | None:
    """The grid point's statements (``decomp``: the grid variables from ``pid``; ``body``: the
    launch's statements with its barrier at ``kw.barrier_at``), both at depth 1, as the kernel
    writes them under ``if PIPE:`` (the pipelined loop) and ``else:`` (as written); None where
    a statement before the barrier reads a variable it did not set (not this form).
    ``total``: the grid's points (an expression of the kernel's arguments).

    Of the values the statements after the barrier use, those set from memory (a chunk's loads)
    are carried from one iteration to the next; index arithmetic is redone from the held ticket
    under fresh names, so it holds no register across the wait (a loop-carried program id made
    Triton 3.7's layout pass fail)."""
    a0, w0, w1 = kw.barrier_at
    pre, arrive, wait, post = decomp + body[:a0], body[a0:w0], body[w0:w1], body[w1:]
    stmts = _tree(pre).body
    split = _split(stmts)
    if split is None:
        return None
    stored, held = split
    used = _names(wait + post).loaded
    ours = [n for n in stored if n != "pid"]
    fresh = kw.namer.fresh
    tk, tk_n, tot, pid_n = fresh("tk"), fresh("tk_next"), fresh("points"), fresh("pid_next")
    nxt = {n: fresh(f"{n}_next") for n in ours}
    nxt["pid"] = pid_n
    cur = {n: fresh(f"{n}_cur") for n in ours if n not in held}
    cur["pid"] = tk   # inside the loop the held ticket is a grid point: pid is the ticket itself
    carried = [n for n in ours if n in held and n in used]
    redo = [st for st in stmts if isinstance(st, ast.Assign) and not (set(_names_of(st).stored) & held)]
    d, d3 = INDENT * 2, INDENT * 3
    out = ["if PIPE:  # the barrier's wait behind the next grid point's loads (akg_rag.lower.triton_pipe)",
           f"{INDENT}{tot} = {total}",
           f"{INDENT}{tk} = pid",
           f"{INDENT}pid = tl.minimum({tk}, {tot} - 1)  # a ticket past the grid: the last point's loads, no store"]
    out += _at(pre, 1)
    out.append(f"{INDENT}if {tk} < {tot}:")
    out += _at(arrive, 2)
    out.append(f"{INDENT}while {tk} < {tot}:")
    out += [f"{d}{tk_n} = tl.atomic_add({kw.ticket}, 1)",
            f"{d}if USE_INT64:",
            f"{d}{INDENT}{tk_n} = tl.cast({tk_n}, tl.int64)",
            f"{d}{pid_n} = tl.minimum({tk_n}, {tot} - 1)"]
    out += [d + line for line in _guarded(_renamed(pre, nxt), f"{tk_n} < {tot}")]
    out.append(f"{d}if {tk_n} < {tot}:")
    out += [d3 + line for line in _renamed(arrive, nxt)]
    # this iteration's grid point: its index arithmetic redone, then the statements after the barrier
    out += [d + line for line in ast.unparse(_Rename(cur).visit(ast.Module(redo, []))).splitlines()]
    out += [d + line for line in _renamed(wait + post, cur)]
    out.append(f"{d}{tk} = {tk_n}")
    out += [f"{d}{n} = {nxt[n]}" for n in carried]
    out.append("else:")
    out += _at(pre + arrive + wait + post, 1)
    return out
