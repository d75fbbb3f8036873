"""Tunables of a kernel candidate: find them in its source and rewrite their values exactly.

A tunable is a positive integer literal that sets a schedule, found in four places:

* ``constant`` -- a module-level ``NAME = 1024`` (or ``NAME: int = 1024``) with an UPPER_CASE name;
* ``table``    -- an entry ``"NAME": 64`` of a module-level ``TUNABLES = {...}`` dict;
* ``keyword``  -- a call's ``num_warps=4`` / ``num_stages=3`` / ``NAME=64`` keyword with a literal;
* ``cpp``      -- an UPPER_CASE C/C++ constant inside a string of the module:
  ``constexpr int64_t MC = 64, NC = 256;`` or ``#define VEC 8``.

Offsets are character offsets into the source, so :func:`rewrite` replaces exactly one literal per
changed tunable and leaves every other character as it was. Text that does not parse as Python (a
snippet, a bare C++ file) is scanned line by line with the same rules.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from typing import Literal, Mapping

from akg_rag import pysource
from akg_rag.errors import ConfigError

TunableKind = Literal["constant", "table", "keyword", "cpp"]

_UPPER = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Lower-case launch options of Triton kernels that are schedule knobs.
_LAUNCH_KEYWORDS = frozenset({"num_warps", "num_stages", "num_ctas"})
_INT_TYPES = r"(?:unsigned\s+)?(?:int|long|long\s+long|short|size_t|int64_t|int32_t|uint32_t|uint64_t|index_t)"
_CPP_DECL = re.compile(rf"\b(?:static\s+)?(?:constexpr|const)\s+(?:static\s+)?{_INT_TYPES}\s+([^;{{}}()]*);")
_INT = r"\d+(?:[ \t]*<<[ \t]*\d+)?"  # a decimal literal, or a shift such as 1 << 15
_CPP_DECLARATOR = re.compile(rf"\b([A-Z][A-Z0-9_]*)\s*=\s*({_INT})(?=\s*[,;])")
_CPP_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Z][A-Z0-9_]*)[ \t]+(\d+)[ \t]*(?://.*)?$", re.M)
# Fallback for text that is not Python: assignments at line start and literal keywords.
_TEXT_ASSIGN = re.compile(rf"^[ \t]*([A-Z][A-Z0-9_]*)[ \t]*=[ \t]*({_INT})\b(?![.\w])", re.M)
_TEXT_KEYWORD = re.compile(r"(?<![\w.])(num_warps|num_stages|num_ctas|[A-Z][A-Z0-9_]*)=(\d+)(?=\s*[,)])")


@dataclass(frozen=True)
class Tunable:
    """One tunable occurrence: its key, value, where the literal sits, and what kind of site it is."""

    name: str            # unique key in the source; a repeated name gets "@2", "@3", ...
    value: int
    start: int           # character offset of the literal's first character
    end: int             # offset one past its last character
    kind: TunableKind

    @property
    def base(self) -> str:
        """The name as written, without the repeat suffix (what domain rules match on)."""
        return self.name.split("@", 1)[0]


def find_tunables(source: str, names: set[str] | frozenset[str] | None = None) -> list[Tunable]:
    """Every tunable of ``source`` in source order; with ``names``, only those base names."""
    return [t for t in _find(source) if names is None or t.base in names]


@functools.lru_cache(maxsize=1024)
def _find(source: str) -> tuple[Tunable, ...]:
    """All tunables of a source, memoised: a search parses the same sources many times over."""
    try:
        tree = pysource.parse(source)
    except SyntaxError:
        raw = _scan_text(source)
    else:
        raw = _scan_python(source, tree)
    raw.sort(key=lambda t: t[2])
    out: list[Tunable] = []
    seen: dict[str, int] = {}
    taken: set[int] = set()
    for name, value, start, end, kind in raw:
        if start in taken or value < 1:
            continue
        taken.add(start)
        seen[name] = seen.get(name, 0) + 1
        key = name if seen[name] == 1 else f"{name}@{seen[name]}"
        out.append(Tunable(key, value, start, end, kind))
    return tuple(out)


def tunable_values(source: str, names: set[str] | frozenset[str] | None = None) -> dict[str, int]:
    """``{key: value}`` of every tunable, in source order."""
    return {t.name: t.value for t in find_tunables(source, names)}


def rewrite(source: str, changes: Mapping[str, int]) -> str:
    """``source`` with the named tunables set to new values; every other character is unchanged.

    Raises ``ConfigError`` for a name the source does not have or a value that is not a positive int.
    """
    found = {t.name: t for t in find_tunables(source)}
    unknown = sorted(set(changes) - set(found))
    if unknown:
        raise ConfigError(f"unknown tunable(s) {unknown}; this source has: {', '.join(found) or 'none'}")
    edits = []
    for name, value in changes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"tunable {name} must be a positive int, got {value!r}")
        t = found[name]
        edits.append((t.start, t.end, _format(source[t.start:t.end], value)))
    for start, end, text in sorted(edits, reverse=True):  # back to front: earlier offsets stay valid
        source = source[:start] + text + source[end:]
    return source


def settings(source: str) -> str:
    """Every tunable's value in source order (``A=1,B=2``): one point of the search space."""
    return ",".join(f"{t.name}={t.value}" for t in find_tunables(source))


# --- scanning ---------------------------------------------------------------------------------

_Raw = tuple[str, int, int, int, TunableKind]


def _scan_python(source: str, tree: ast.Module) -> list[_Raw]:
    """Tunables of a module that parses: constants, the TUNABLES table, keywords, C++ in strings."""
    offsets = _LineOffsets(source)
    out: list[_Raw] = []

    def literal(node: ast.expr | None, name: str, kind: TunableKind) -> None:
        value = _literal_value(node)
        if node is not None and value is not None:
            start, end = offsets.span(node)
            out.append((name, value, start, end, kind))

    for stmt in tree.body:
        target, value = _single_target(stmt)
        if target is None:
            continue
        if target == "TUNABLES" and isinstance(value, ast.Dict):
            for k, v in zip(value.keys, value.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    literal(v, k.value, "table")
        elif _UPPER.match(target):
            literal(value, target, "constant")
    docstrings = {id(n.body[0].value) for n in ast.walk(tree) if _has_docstring(n)}  # type: ignore[attr-defined]
    strings: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg and (node.arg in _LAUNCH_KEYWORDS or _UPPER.match(node.arg)):
            literal(node.value, node.arg, "keyword")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.end_lineno is not None
              and id(node) not in docstrings):
            strings.append(offsets.span(node))
    for start, end in strings:
        out += _scan_cpp(source, start, end)
    return out


def _literal_value(node: ast.expr | None) -> int | None:
    """The value of an int literal or of a shift of two int literals (``1 << 15``); else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.LShift)
            and all(isinstance(x, ast.Constant) and type(x.value) is int for x in (node.left, node.right))):
        left, right = node.left.value, node.right.value  # type: ignore[attr-defined]
        return left << right if 0 <= right < 63 else None
    return None


def _int(text: str) -> int:
    """Value of a matched ``_INT`` literal."""
    if "<<" in text:
        left, right = text.split("<<")
        return int(left) << int(right)
    return int(text)


def _format(old_text: str, value: int) -> str:
    """New literal text: keeps the ``1 << k`` form where the old literal had it and value allows."""
    if "<<" in old_text and value & (value - 1) == 0:
        return f"1 << {value.bit_length() - 1}"
    return str(value)


def _single_target(stmt: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``(name, value)`` of ``NAME = value`` or ``NAME: T = value``; ``(None, None)`` otherwise."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value
    return None, None


def _has_docstring(node: ast.AST) -> bool:
    """True for a module, class or function whose body opens with a string (prose, not code)."""
    if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    first = node.body[0] if node.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def _scan_cpp(source: str, start: int, end: int) -> list[_Raw]:
    """C/C++ integer constants and ``#define``s between two offsets (a string literal's span)."""
    out: list[_Raw] = []
    for decl in _CPP_DECL.finditer(source, start, end):
        for m in _CPP_DECLARATOR.finditer(source, decl.start(1), decl.end(1) + 1):
            out.append((m.group(1), _int(m.group(2)), m.start(2), m.end(2), "cpp"))
    for m in _CPP_DEFINE.finditer(source, start, end):
        out.append((m.group(1), int(m.group(2)), m.start(2), m.end(2), "cpp"))
    return out


def _scan_text(source: str) -> list[_Raw]:
    """Text that is not Python: line-start assignments, literal keywords and C++ constants."""
    out: list[_Raw] = [(m.group(1), _int(m.group(2)), m.start(2), m.end(2), "constant")
                       for m in _TEXT_ASSIGN.finditer(source)]
    out += [(m.group(1), int(m.group(2)), m.start(2), m.end(2), "keyword") for m in _TEXT_KEYWORD.finditer(source)]
    return out + _scan_cpp(source, 0, len(source))


class _LineOffsets:
    """Maps ast positions (1-based line, UTF-8 *byte* column) to character offsets in the source."""

    def __init__(self, source: str) -> None:
        self.source = source
        # ast counts lines at \n, \r\n and \r only (not at the other breaks str.splitlines knows)
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", source)]

    def offset(self, lineno: int, col_bytes: int) -> int:
        """Character offset of a (line, byte column) position."""
        start = self.starts[lineno - 1]
        head = self.source[start:start + col_bytes]  # a byte column never exceeds its char count
        return start + len(head.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))

    def span(self, node: ast.expr) -> tuple[int, int]:
        """``(start, end)`` character offsets of an expression node."""
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)
