"""Names and precedence for the Triton emitter: expressions with their precedence (:class:`Em`),
literals, safe Python names (:class:`Namer`) and the power-of-two tile blocks of a sketch's extents
(:class:`Blocks`). Shared by :mod:`akg_rag.lower.triton_expr` (expressions),
:mod:`akg_rag.lower.triton_kernel` (statements) and :mod:`akg_rag.lower.triton_host` (the launch).
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass

from akg_rag.errors import SketchError
from akg_rag.lower.sizes import Size
from akg_rag.lower.typed import TypedSketch

ATOM, UNARY, MUL, ADD, AND, XOR, OR, CMP = 100, 12, 11, 10, 6, 5, 4, 3
COMPUTE_TL = {"f32": "tl.float32", "f64": "tl.float64", "i32": "tl.int32", "i64": "tl.int64",
              "bool": "tl.int1"}
# storage dtypes a load widens to its compute dtype (``.to(...)`` after the ``tl.load``)
WIDEN_TL = {"f16": "tl.float32", "bf16": "tl.float32", "i8": "tl.int32", "i16": "tl.int32", "u8": "tl.int32"}
# names the generated code uses itself (modules, builtins, fixed locals and parameters)
_RESERVED = {"tl", "triton", "torch", "libdevice", "os", "math", "float", "int", "range", "min", "max",
             "len", "abs", "sum", "tuple", "zip", "type", "isinstance", "ValueError", "pid", "rest",
             "tensors", "grid", "programs", "use_int64", "USE_INT64", "DOT_X3", "dot_x3", "dot_mode",
             "pid_g", "PROGRAMS", "CACHE_HINTS", "INTERIOR", "HIDE_ALIGN", "lane_off", "launched"}


@dataclass(frozen=True)
class Em:
    """An emitted expression and its precedence (for minimal parentheses)."""

    text: str
    prec: int = ATOM

    def at(self, prec: int) -> str:
        """The text, parenthesised when it binds looser than ``prec``."""
        return self.text if self.prec >= prec else f"({self.text})"


def lit(value: float | int | bool, dtype: str) -> Em:
    """A literal of a compute dtype (floats keep a decimal point so Triton types them f32)."""
    if dtype == "bool":
        return Em("True" if value else "False")
    if dtype in ("i32", "i64"):
        v = int(value) if value == value and abs(value) != float("inf") else 0
        return Em(str(v), UNARY if v < 0 else ATOM)
    v = float(value)
    if v != v:
        return Em('float("nan")')
    if abs(v) == float("inf"):
        return Em('float("inf")') if v > 0 else Em('-float("inf")', UNARY)
    return Em(repr(v), UNARY if v < 0 else ATOM)


class Namer:
    """Python names for sketch identifiers and generated names that never collide."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = {self.py(n) for n in taken}
        self.memo: dict[str, str] = {}

    @staticmethod
    def py(name: str) -> str:
        """A sketch identifier as a safe Python name (keywords and module names get a suffix)."""
        if keyword.iskeyword(name) or name in _RESERVED or name.startswith("_"):
            return f"v{name}" if name.startswith("_") else f"{name}_"
        return name

    def fresh(self, base: str) -> str:
        """A generated name, the same for the same ``base``, distinct from every sketch name."""
        if base not in self.memo:
            name, n = base, 2
            while name in self.taken:
                name, n = f"{base}_{n}", n + 1
            self.taken.add(name)
            self.memo[base] = name
        return self.memo[base]


class Blocks:
    """The power-of-two block size of every tile extent of a sketch, shared by kernels and host.

    A constant extent gets a literal block; any other extent a ``BLOCK_*`` constexpr the host
    computes with ``_p2`` (the next power of two). Extents that are ``matmul`` dimensions get at least
    16 (``tl.dot``'s minimum)."""

    def __init__(self, typed: TypedSketch, namer: Namer) -> None:
        self.namer = namer
        self.labels: dict[str, str] = {}
        self.dot: set[str] = set()
        for mm in typed.matmuls:
            a, b = (typed.type_of(x) for x in mm.args)  # type: ignore[union-attr]
            dims = (a.shape[-2], a.shape[-1], b.shape[-1])
            if not any(d.is_one for d in dims) and len(a.shape) <= 3 and len(b.shape) <= 3:
                self.dot.update(d.key for d in dims)

    def label(self, s: Size) -> str:
        """A short identifier part for an extent: its name, its value, or S0, S1, ..."""
        if s.key not in self.labels:
            if s.value is not None:
                self.labels[s.key] = str(s.value)
            elif s.key.isidentifier():
                self.labels[s.key] = s.key
            else:
                self.labels[s.key] = f"S{sum(1 for v in self.labels.values() if v.startswith('S'))}"
        return self.labels[s.key]

    def const_block(self, s: Size) -> int | None:
        """The block of a constant extent (None for a run-time one)."""
        if s.value is None:
            return None
        b = 1
        while b < s.value:
            b *= 2
        return max(b, 16) if s.key in self.dot else b

    def name(self, s: Size) -> str:
        """The block size as kernel text: a literal or a ``BLOCK_*`` constexpr."""
        c = self.const_block(s)
        if c is not None:
            return str(c)
        label = self.label(s)
        return self.namer.fresh(f"BLOCK_{label}" if not label.startswith("BLOCK") else f"{label}_PADDED")

    def host(self, s: Size, size_text: str) -> str:
        """Host expression of a run-time block size."""
        pow2 = f"_p2({size_text})"
        return f"max(16, {pow2})" if s.key in self.dot else pow2

    def padded(self, s: Size) -> bool:
        """Whether lanes past the extent exist (a mask is needed)."""
        c = self.const_block(s)
        return s.value is None or c != s.value


def fail(message: str, node: object) -> SketchError:
    """A SketchError at ``node``'s position."""
    return SketchError(message, getattr(node, "line", 0), getattr(node, "column", 0))
