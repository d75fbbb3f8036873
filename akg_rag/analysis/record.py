"""The records task analysis produces: tensor specs and the analysis of one task.

Both are plain dataclasses that round-trip through JSON (``to_dict``/``from_dict``) so that an
analysis can be cached, stored as kernel metadata, or shipped across the executor boundary.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class TensorSpec:
    """Shape and dtype of one tensor; a dimension of -1 is dynamic (differs across input sets)."""

    shape: tuple[int, ...]
    dtype: str  # torch dtype without the "torch." prefix, e.g. "float32"

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"shape": [...], "dtype": "float32"}``."""
        return {"shape": list(self.shape), "dtype": self.dtype}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TensorSpec:
        """Inverse of :meth:`to_dict`."""
        return cls(shape=tuple(int(s) for s in d["shape"]), dtype=str(d["dtype"]))


@dataclass
class TaskAnalysis:
    """What the deterministic analysis of a KernelBench task derives (contract in docs/architecture.md)."""

    op_name: str
    op_type: str
    op_types: list[str]
    computation: str
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    input_sets: list[list[TensorSpec]]
    dtype: str
    flops: int
    min_bytes: int
    aten_ops: list[str]
    task_hash: str
    # Canonical operation sequence behind `computation` (e.g. ["linear", "relu"]); informative.
    canonical_ops: list[str] = field(default_factory=list)
    # A purely pointwise task's output as one expression tree with its constants (JSON dicts shaped
    # like akg_rag.lower.region.Expr; see akg_rag.analysis.pointwise); None otherwise.
    pointwise_expr: dict[str, Any] | None = None

    @property
    def dynamic(self) -> bool:
        """True when the task has several input sets (dynamic shapes)."""
        return len(self.input_sets) > 1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        d = asdict(self)
        d["inputs"] = [s.to_dict() for s in self.inputs]
        d["outputs"] = [s.to_dict() for s in self.outputs]
        d["input_sets"] = [[s.to_dict() for s in row] for row in self.input_sets]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TaskAnalysis:
        """Inverse of :meth:`to_dict`; unknown keys are ignored so older readers keep working."""
        return cls(
            op_name=str(d["op_name"]),
            op_type=str(d["op_type"]),
            op_types=[str(t) for t in d["op_types"]],
            computation=str(d["computation"]),
            inputs=[TensorSpec.from_dict(s) for s in d["inputs"]],
            outputs=[TensorSpec.from_dict(s) for s in d["outputs"]],
            input_sets=[[TensorSpec.from_dict(s) for s in row] for row in d["input_sets"]],
            dtype=str(d["dtype"]),
            flops=int(d["flops"]),
            min_bytes=int(d["min_bytes"]),
            aten_ops=[str(o) for o in d["aten_ops"]],
            task_hash=str(d["task_hash"]),
            canonical_ops=[str(o) for o in d.get("canonical_ops", [])],
            pointwise_expr=d.get("pointwise_expr"),
        )
