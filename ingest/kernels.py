"""Kernel folders: a task, its candidates and their sidecars, checked and turned into records.

A kernel folder holds ``task.py`` and, per target, a candidate ``{dsl}_{backend}.py`` with its
sidecar ``{dsl}_{backend}.json`` (docs/architecture.md, "Kernel folders"). Candidates are checked
statically (they must parse and define ``ModelNew``) and never executed here; the task is analysed
(traced on meta tensors), which is how the record gets its operator, shapes and computation text.
"""

from __future__ import annotations

import ast
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from akg_rag.dsl import TARGETS
from akg_rag.errors import AkgError, MetadataError
from akg_rag.records import KernelRecord, KernelSidecar, parse_sidecar, short_hash

from ingest.textfile import Rejected, read_text

if TYPE_CHECKING:
    from akg_rag.analysis import TaskAnalysis

TASK_FILE = "task.py"
# File stems of candidates and sidecars: one per known target, e.g. "cpp_cpu", "cuda_c_cuda".
TARGET_STEMS: dict[str, tuple[str, str]] = {f"{d}_{b}": (d, b) for d, b in TARGETS}

Analyze = Callable[[Path, str], "TaskAnalysis"]


@dataclass
class CandidateFiles:
    """One candidate of a kernel folder with its sidecar (None when missing)."""

    stem: str                 # "cpp_cpu"
    candidate: Path | None
    sidecar: Path | None


@dataclass
class KernelFolder:
    """A folder with a ``task.py``; ``rel`` is its root-qualified path, e.g. "knowledge/kernels/softmax"."""

    path: Path
    rel: str

    def candidates(self) -> tuple[list[CandidateFiles], list[Path]]:
        """The folder's candidate/sidecar pairs by target, and the other files it holds."""
        pairs: dict[str, CandidateFiles] = {}
        others: list[Path] = []
        for child in sorted(self.path.iterdir()):
            if child.name.startswith(".") or child.name == "__pycache__" or child.name == TASK_FILE:
                continue
            stem, suffix = child.stem, child.suffix
            if child.is_file() and stem in TARGET_STEMS and suffix in (".py", ".json"):
                pair = pairs.setdefault(stem, CandidateFiles(stem, None, None))
                if suffix == ".py":
                    pair.candidate = child
                else:
                    pair.sidecar = child
            else:
                others.append(child)
        return [pairs[s] for s in sorted(pairs)], others


def default_analyze(path: Path, source: str) -> "TaskAnalysis":
    """Task analysis from :mod:`akg_rag.analysis` (imported on first use)."""
    from akg_rag.analysis import analyze_task

    return analyze_task(path, source)


@contextmanager
def full_scale() -> Iterator[None]:
    """Analyse tasks at their realistic shapes: metadata records full-scale shapes, not CPU-test ones."""
    old = os.environ.get("AKG_TASK_SCALE")
    os.environ["AKG_TASK_SCALE"] = "full"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("AKG_TASK_SCALE", None)
        else:
            os.environ["AKG_TASK_SCALE"] = old


def check_candidate(path: Path, source: str) -> None:
    """Statically check that a candidate parses and defines ``ModelNew`` (it is never run here)."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as e:
        raise Rejected(path, f"syntax error at line {e.lineno}: {e.msg}") from None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "ModelNew" for t in targets):
                return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name) == "ModelNew" for a in node.names):
                return
    raise Rejected(path, "defines no ModelNew (a candidate must define class ModelNew)")


@dataclass
class PreparedCandidate:
    """A candidate whose files were read and hashed; ``record`` is built only when it changed."""

    files: CandidateFiles
    source: str               # root-qualified path of the candidate file
    code: str
    sidecar_text: str
    file_hash: str


def prepare(folder: KernelFolder, files: CandidateFiles, task_source: str) -> PreparedCandidate:
    """Read a candidate and its sidecar and hash them with the task; raise Rejected on a missing half."""
    if files.candidate is None:
        raise Rejected(files.sidecar, f"sidecar without a candidate (expected {files.stem}.py next to it)")
    if files.sidecar is None:
        raise Rejected(files.candidate, f"no metadata sidecar (expected {files.stem}.json next to it)")
    code = read_text(files.candidate)
    sidecar_text = read_text(files.sidecar)
    return PreparedCandidate(
        files=files,
        source=f"{folder.rel}/{files.candidate.name}",
        code=code,
        sidecar_text=sidecar_text,
        file_hash=short_hash("\0".join([task_source, code, sidecar_text])),
    )


def validate_sidecar(prepared: PreparedCandidate) -> KernelSidecar:
    """Parse the sidecar and check it names the same target as its file name."""
    path = prepared.files.sidecar
    try:
        sidecar = parse_sidecar(prepared.sidecar_text, path)
    except MetadataError as e:
        raise Rejected(path, f"invalid metadata: {e.problem}") from None
    expected = TARGET_STEMS[prepared.files.stem]
    if (sidecar.dsl, sidecar.backend) != expected:
        raise Rejected(path, f"says {sidecar.dsl}/{sidecar.backend} but the file name says {expected[0]}/{expected[1]}")
    return sidecar


def analyse(folder: KernelFolder, task_source: str, analyze: Analyze) -> Any:
    """Analyse the folder's task at full scale; any failure is a rejection of ``task.py``."""
    task_path = folder.path / TASK_FILE
    try:
        with full_scale():
            return analyze(task_path, task_source)
    except AkgError as e:
        reason = getattr(e, "problem", None) or str(e)
        raise Rejected(task_path, f"task analysis failed: {reason}") from None
    except Exception as e:  # noqa: BLE001 - a task is user code; whatever it raises is its problem
        raise Rejected(task_path, f"task analysis failed: {type(e).__name__}: {e}") from None


def check(prepared: PreparedCandidate) -> KernelSidecar:
    """The cheap checks, before any analysis: a valid sidecar and a candidate defining ModelNew."""
    sidecar = validate_sidecar(prepared)
    check_candidate(prepared.files.candidate, prepared.code)
    return sidecar


def build_record(prepared: PreparedCandidate, sidecar: KernelSidecar, analysis: Any, root: str) -> KernelRecord:
    """The record of a checked candidate and its task's analysis."""
    return KernelRecord.build(
        sidecar, prepared.code, analysis, prepared.source, root=root, file_hash=prepared.file_hash
    )
