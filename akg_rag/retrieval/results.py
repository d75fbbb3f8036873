"""Typed results of a retrieval: the query, kernel and document hits, and a report per stage.

A :class:`RetrievalResult` can explain itself: how many candidates entered and left each stage, how
long each took, and every hit's semantic, shape and final score.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Query:
    """What was asked: the text that was embedded, the hard filters and the query's input shapes."""

    text: str
    dsl: str | None = None
    backend: str | None = None
    op_type: str | None = None
    shapes: list[list[int]] | None = None  # input shapes; -1 marks a dynamic dim; None = unknown
    k: int = 5
    op_name: str = ""  # from task analysis, "" for free text


@dataclass
class KernelHit:
    """One kernel record that survived every stage, with its three scores."""

    id: str
    op_name: str
    op_type: str
    dsl: str
    backend: str
    semantic_score: float  # cosine similarity of computation embeddings, in [-1, 1]
    shape_score: float | None  # shape compatibility in [0, 1]; None when the query has no shapes
    score: float  # the final score that orders the hits (see shapes.combine)
    metadata: dict[str, Any] = field(default_factory=dict)  # the record's flat metadata, minus code
    code: str = ""


@dataclass
class DocHit:
    """One document chunk retrieved for the query."""

    id: str
    text: str
    heading: str
    source: str
    dsl: str
    backend: str
    score: float  # cosine similarity to the query, in [-1, 1]
    hardware: str = ""  # non-empty for hardware documents
    topic: str = ""


@dataclass
class StageReport:
    """How many candidates entered and left one stage, and how long it took (milliseconds)."""

    name: str
    n_in: int
    n_out: int
    ms: float = 0.0
    note: str = ""


@dataclass
class RetrievalResult:
    """Kernel hits (best first), document hits, the per-stage reports and the query itself."""

    hits: list[KernelHit]
    docs: list[DocHit]
    stages: list[StageReport]
    query: Query

    def stage(self, name: str) -> StageReport:
        """Return the report of the stage called ``name`` (KeyError when there is none)."""
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole result."""
        return {
            "query": asdict(self.query),
            "stages": [asdict(s) for s in self.stages],
            "hits": [asdict(h) for h in self.hits],
            "docs": [asdict(d) for d in self.docs],
        }

    def explain(self) -> str:
        """A human-readable account: per stage the candidates in and out, then each hit's scores."""
        q = self.query
        filters = ", ".join(
            f"{name}={value}"
            for name, value in (("dsl", q.dsl), ("backend", q.backend), ("op_type", q.op_type))
            if value
        )
        lines = [
            f"query: {_clip(q.text, 70)!r}",
            f"filters: {filters or 'none'}; shapes: {q.shapes if q.shapes is not None else 'unknown'}",
            "stages:",
        ]
        for s in self.stages:
            note = f"  ({s.note})" if s.note else ""
            lines.append(f"  {s.name:<9} {s.n_in:>8} -> {s.n_out:<8} {s.ms:8.2f} ms{note}")
        lines.append("hits:")
        if not self.hits:
            lines.append("  (none)")
        for rank, h in enumerate(self.hits, 1):
            shape = "  n/a" if h.shape_score is None else f"{h.shape_score:.3f}"
            lines.append(
                f"  {rank}. {h.op_name:<24} {h.dsl}/{h.backend:<7} semantic {h.semantic_score:.3f}"
                f"  shape {shape}  final {h.score:.3f}  [{h.id}]"
            )
        if self.docs:
            lines.append("docs:")
            for d in self.docs:
                lines.append(f"  {d.score:.3f}  {d.source} :: {_clip(d.heading, 60)}")
        return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    """Shorten ``text`` to one line of at most ``width`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 3] + "..."
