"""What the knowledge store holds: kernel sidecars, kernel records, doc chunks, flat metadata.

Chroma metadata is flat (str, int, float, bool). :func:`to_chroma_metadata` and
:func:`from_chroma_metadata` convert between that and Python values for both collections: ``None``
is omitted, lists and dicts are JSON-encoded, bools stay bools. The kernel keys are fixed in
docs/architecture.md ("Knowledge store"); retrieval filters on exactly those names.

Besides the contract keys, ingested rows carry bookkeeping keys used by incremental ingest:
``root`` (the label of the ingested tree), ``file_hash`` (hash of the files the row came from) and,
for doc chunks, ``n_chunks``. Rows written by a run (:func:`add_kernel`) carry no ``root``, so no
ingest ever deletes them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, ValidationError, field_validator, model_validator

from akg_rag.dsl import TARGETS, Backend, Dsl
from akg_rag.errors import MetadataError
from akg_rag.optypes import sort_op_types

if TYPE_CHECKING:
    from akg_rag.analysis import TaskAnalysis
    from akg_rag.embedding import Embedder
    from akg_rag.store import KnowledgeStore

# Metadata keys stored as JSON text and decoded by from_chroma_metadata.
JSON_KEYS: frozenset[str] = frozenset({"shapes", "output_shapes", "tunables"})
# Keys that say where a row came from rather than what it is; they stay out of content_hash.
BOOKKEEPING_KEYS: frozenset[str] = frozenset({"content_hash", "source", "root", "file_hash"})
MEASURED_FLOATS: tuple[str, ...] = ("candidate_ms", "eager_ms", "compile_ms", "speedup_eager", "speedup_compile")


def short_hash(text: str, n: int = 16) -> str:
    """sha256 hex of ``text`` cut to ``n`` characters."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def to_chroma_metadata(values: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """Flatten a dict for Chroma: drop None, JSON-encode lists/tuples/dicts, keep scalars."""
    out: dict[str, str | int | float | bool] = {}
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, (bool, int, float, str)):
            out[key] = value
        elif isinstance(value, (list, tuple, dict)):
            out[key] = json.dumps(value, sort_keys=True, separators=(",", ":"))
        else:
            raise TypeError(f"metadata {key!r}: cannot store a {type(value).__name__} in Chroma")
    return out


def from_chroma_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`to_chroma_metadata` for the known keys (JSON keys, ``op_types``)."""
    out = dict(meta)
    for key in JSON_KEYS & out.keys():
        if isinstance(out[key], str):
            out[key] = json.loads(out[key])
    if isinstance(out.get("op_types"), str):
        out["op_types"] = [t for t in out["op_types"].split(",") if t]
    return out


class Measured(BaseModel):
    """Timings of a kernel and what they were measured against; every field may be unknown."""

    model_config = ConfigDict(extra="forbid")

    candidate_ms: PositiveFloat | None = None
    eager_ms: PositiveFloat | None = None
    compile_ms: PositiveFloat | None = None
    speedup_eager: PositiveFloat | None = None
    speedup_compile: PositiveFloat | None = None
    device: str | None = None
    baseline: str | None = None
    dtype: str | None = None
    scale: Literal["small", "full"] | None = None   # AKG_TASK_SCALE the figures were taken at
    roofline_fraction: PositiveFloat | None = None  # roofline floor time / kernel time
    source: str | None = None                       # the results file the figures come from


class KernelSidecar(BaseModel):
    """The ``{dsl}_{backend}.json`` file next to a kernel candidate (docs/architecture.md)."""

    model_config = ConfigDict(extra="forbid")

    dsl: Dsl
    backend: Backend
    arch: str
    description: str
    tunables: dict[str, int | float | str | bool] = Field(default_factory=dict)
    sketch: str = ""
    measured: Measured = Field(default_factory=Measured)
    origin: Literal["seed", "run"] = "seed"

    @field_validator("arch", "description")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    @model_validator(mode="after")
    def _known_target(self) -> "KernelSidecar":
        if (self.dsl, self.backend) not in TARGETS:
            allowed = ", ".join(f"{d}/{b}" for d, b in TARGETS)
            raise ValueError(f"unknown target {self.dsl}/{self.backend}; allowed: {allowed}")
        return self


def parse_sidecar(text: str, path: object = "<sidecar>") -> KernelSidecar:
    """Validate sidecar JSON text; raise MetadataError with every problem on one line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MetadataError(path, f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    if not isinstance(data, dict):
        raise MetadataError(path, f"expected a JSON object, got {type(data).__name__}")
    try:
        return KernelSidecar.model_validate(data)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            where = ".".join(str(p) for p in err["loc"]) or "sidecar"
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            problems.append(f"{where}: {msg}")
        raise MetadataError(path, "; ".join(problems)) from None


@dataclass
class KernelRecord:
    """One row of the ``kernels`` collection: embedded computation text plus flat metadata."""

    id: str
    document: str
    metadata: dict[str, Any]
    code: str

    @classmethod
    def build(
        cls,
        sidecar: KernelSidecar,
        code: str,
        analysis: "TaskAnalysis",
        source: str,
        *,
        root: str | None = None,
        file_hash: str | None = None,
    ) -> "KernelRecord":
        """Combine a validated sidecar, the candidate source and the task analysis into a record."""
        op_types = sort_op_types(analysis.op_types) or [analysis.op_type]
        measured = sidecar.measured
        values: dict[str, Any] = {
            "op_name": analysis.op_name,
            "op_type": analysis.op_type,
            "op_types": ",".join(op_types),
            **{f"type_{t}": True for t in op_types},
            "dsl": sidecar.dsl,
            "backend": sidecar.backend,
            "arch": sidecar.arch,
            "dtype": analysis.dtype,
            "shapes": [list(t.shape) for t in analysis.inputs],
            "output_shapes": [list(t.shape) for t in analysis.outputs],
            "dynamic": len(analysis.input_sets) > 1,
            "computation": analysis.computation,
            "sketch": sidecar.sketch,
            "code": code,
            **{k: getattr(measured, k) for k in MEASURED_FLOATS},
            "baseline": measured.baseline,
            "device": measured.device,
            "measured_scale": measured.scale,
            "roofline_fraction": measured.roofline_fraction,
            "origin": sidecar.origin,
            "task_hash": analysis.task_hash,
            "flops": int(analysis.flops),
            "min_bytes": int(analysis.min_bytes),
            "description": sidecar.description,
            "tunables": sidecar.tunables,
            "source": source,
            "root": root,
            "file_hash": file_hash,
        }
        meta = to_chroma_metadata(values)
        content = {k: v for k, v in meta.items() if k not in BOOKKEEPING_KEYS}
        meta["content_hash"] = short_hash(json.dumps(content, sort_keys=True))
        record_id = ":".join(
            ["kernel", sidecar.dsl, sidecar.backend, analysis.op_name, analysis.task_hash, short_hash(code, 8)]
        )
        return cls(id=record_id, document=analysis.computation, metadata=meta, code=code)


@dataclass
class DocChunk:
    """One chunk of a markdown document, ready for the ``docs`` collection."""

    source: str                 # root-qualified path, e.g. "knowledge/docs/triton/reductions.md"
    index: int                  # position of the chunk in its file, from 0
    heading: str                # heading path, e.g. "Triton > Reductions > Row-wise"
    text: str                   # the chunk body (without the heading prefix)
    dsl: str | None = None
    backend: str | None = None
    hardware: str | None = None
    topic: str | None = None
    root: str | None = None
    file_hash: str | None = None
    n_chunks: int | None = None  # chunks in the whole file: lets ingest spot a half-written file

    @property
    def id(self) -> str:
        """``doc:{source}:{index}``."""
        return f"doc:{self.source}:{self.index}"

    @property
    def document(self) -> str:
        """What is embedded: the heading path, a blank line, then the body."""
        return f"{self.heading}\n\n{self.text}" if self.heading else self.text

    def metadata(self) -> dict[str, str | int | float | bool]:
        """Flat Chroma metadata for this chunk."""
        return to_chroma_metadata({
            "dsl": self.dsl,
            "backend": self.backend,
            "hardware": self.hardware,
            "topic": self.topic,
            "source": self.source,
            "heading": self.heading,
            "chunk": self.index,
            "n_chunks": self.n_chunks,
            "root": self.root,
            "file_hash": self.file_hash,
            "content_hash": short_hash(self.document),
        })


def add_kernel(store: "KnowledgeStore", embedder: "Embedder", record: KernelRecord) -> bool:
    """Write a verified kernel to the ``kernels`` collection; False when its id is already there.

    The id is derived from target, operator, task and code, so the same kernel is never stored
    twice: the first record of a kernel wins (a seed kernel is not overwritten by a run that
    rediscovered it).
    """
    if store.get("kernels", record.id) is not None:
        return False
    vectors = embedder.embed([record.document])
    store.upsert("kernels", [record.id], vectors, [record.document], [record.metadata])
    return True
