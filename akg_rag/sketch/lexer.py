"""Tokens of the Unified Sketch, with Python-style INDENT/DEDENT inside the braces.

Indentation is measured in spaces (tabs are rejected, they make widths ambiguous). Blank lines and
``#`` comments are skipped. The body's first line sets the base indentation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from akg_rag.errors import SketchError


@dataclass(frozen=True)
class Token:
    """One token: kind is NAME, NUMBER, STRING, OP, NEWLINE, INDENT, DEDENT or EOF."""

    kind: str
    value: str
    line: int
    column: int


_TOKEN = re.compile(
    r"""(?P<NUMBER>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
      | (?P<NAME>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<STRING>"[^"\n]*"|'[^'\n]*')
      | (?P<OP>->|//|[@()\[\]{},:;=+\-*/%])
      | (?P<SPACE>[ ]+)
      | (?P<COMMENT>\#.*)
    """,
    re.VERBOSE,
)


def tokenize(text: str) -> list[Token]:
    """Split sketch text into tokens; raise ``SketchError`` at the first character that fits none."""
    tokens: list[Token] = []
    indents: list[int] = []
    depth = 0  # open ( and [ : newlines inside them are not statement ends
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if "\t" in line[: len(line) - len(stripped) + 1]:
            raise SketchError("tab in indentation; indent with spaces", lineno, line.index("\t") + 1)
        indent = len(line) - len(stripped)
        if depth == 0:
            _indentation(tokens, indents, indent, stripped, lineno)
        col = indent
        while col < len(line):
            m = _TOKEN.match(line, col)
            if m is None:
                raise SketchError(f"unexpected character {line[col]!r}", lineno, col + 1)
            kind = m.lastgroup or ""
            value = m.group()
            if kind == "OP" and value in "([":
                depth += 1
            elif kind == "OP" and value in ")]":
                depth = max(0, depth - 1)
            if kind not in ("SPACE", "COMMENT"):
                tokens.append(Token(kind, value, lineno, col + 1))
            col = m.end()
        if depth == 0:
            tokens.append(Token("NEWLINE", "", lineno, len(line) + 1))
    end = len(text.splitlines()) + 1
    for _ in indents[1:]:
        tokens.append(Token("DEDENT", "", end, 1))
    tokens.append(Token("EOF", "", end, 1))
    return tokens


def _indentation(tokens: list[Token], indents: list[int], indent: int, stripped: str, lineno: int) -> None:
    """Emit INDENT/DEDENT tokens for a new logical line inside the sketch braces."""
    opens_or_closes = stripped.startswith("sketch") or stripped.startswith("}")
    if opens_or_closes and not indents:
        return  # header line before the body: no indentation bookkeeping
    if stripped.startswith("}"):
        while len(indents) > 1:
            indents.pop()
            tokens.append(Token("DEDENT", "", lineno, indent + 1))
        indents.clear()
        return
    if not indents:
        indents.append(indent)  # first body line fixes the base indentation
        return
    if indent > indents[-1]:
        indents.append(indent)
        tokens.append(Token("INDENT", "", lineno, indent + 1))
        return
    while indent < indents[-1]:
        indents.pop()
        tokens.append(Token("DEDENT", "", lineno, indent + 1))
        if not indents:
            break
    if not indents or indent != indents[-1]:
        raise SketchError("unindent does not match any outer indentation level", lineno, indent + 1)
