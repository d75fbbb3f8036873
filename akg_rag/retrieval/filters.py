"""Stage 2, hard filters: keep only kernels of the requested DSL, backend and op type.

A filter is a filter: a record of another DSL or backend never comes back, whatever the scores.

Op type rule: a record matches the requested op type when that type is among *all* of its op types
(its ``type_<t>`` flags, or the comma-joined ``op_types`` string for records written without flags),
not only its primary type. A fused ``gemm + softmax`` kernel is primarily a matmul, yet it is exactly
the code one wants to read when writing a softmax; a primary-only rule would hide it. The semantic
stage already puts plain softmax kernels above fused ones when the query is a plain softmax.

Unset fields (``None``) do not filter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from akg_rag.dsl import BACKENDS, DSLS, check_target
from akg_rag.errors import ConfigError
from akg_rag.optypes import OP_TYPES


def record_op_types(meta: Mapping[str, Any]) -> frozenset[str]:
    """Every op type a kernel record declares: its ``type_<t>`` flags plus its ``op_types`` string."""
    flagged = {t for t in OP_TYPES if meta.get(f"type_{t}") is True}
    listed = {t.strip() for t in str(meta.get("op_types") or "").split(",") if t.strip()}
    primary = {str(meta["op_type"])} if meta.get("op_type") else set()
    return frozenset(flagged | listed | primary)


@dataclass(frozen=True)
class KernelFilter:
    """The hard filter of stage 2; validates its values on construction."""

    dsl: str | None = None
    backend: str | None = None
    op_type: str | None = None

    def __post_init__(self) -> None:
        _check("dsl", self.dsl, DSLS)
        _check("backend", self.backend, BACKENDS)
        _check("op type", self.op_type, OP_TYPES)
        if self.dsl and self.backend:
            check_target(self.dsl, self.backend)

    def matches(self, meta: Mapping[str, Any]) -> bool:
        """True when the record with metadata ``meta`` passes every set field of the filter."""
        if self.dsl is not None and meta.get("dsl") != self.dsl:
            return False
        if self.backend is not None and meta.get("backend") != self.backend:
            return False
        if self.op_type is not None and self.op_type not in record_op_types(meta):
            return False
        return True

    def apply(
        self, ranking: Iterable[tuple[str, float]], metadata: Mapping[str, Mapping[str, Any]]
    ) -> list[tuple[str, float]]:
        """Filter a ranking of ``(id, score)`` keeping its order; ``metadata`` maps id -> metadata."""
        return [(i, s) for i, s in ranking if self.matches(metadata[i])]

    def where(self) -> dict[str, Any] | None:
        """The same filter as a Chroma ``where`` clause (None when nothing is filtered).

        Only the ``type_<t>`` flag is consulted for the op type here, as the ingestion writes it for
        every type a record has.
        """
        clauses: list[dict[str, Any]] = []
        if self.dsl is not None:
            clauses.append({"dsl": self.dsl})
        if self.backend is not None:
            clauses.append({"backend": self.backend})
        if self.op_type is not None:
            clauses.append({f"type_{self.op_type}": True})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def describe(self) -> str:
        """A short text such as ``dsl=triton backend=cuda op_type=softmax`` (or ``none``)."""
        parts = [
            f"{name}={value}"
            for name, value in (("dsl", self.dsl), ("backend", self.backend), ("op_type", self.op_type))
            if value is not None
        ]
        return " ".join(parts) or "none"


def _check(what: str, value: str | None, allowed: tuple[str, ...]) -> None:
    """Raise ``ConfigError`` listing ``allowed`` when ``value`` is set and not one of them."""
    if value is not None and value not in allowed:
        raise ConfigError(f"unknown {what} {value!r}; allowed: {', '.join(allowed)}")
