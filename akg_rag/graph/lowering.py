"""The lowering pipeline (:mod:`akg_rag.lower`) as the graph uses it: plans and candidates as data.

``lower_task`` turns a task into region sketches and a candidate with generated kernels, with no
LLM and no stored kernel. Here it runs at the run's task scale (a lowered candidate allocates its
outputs at the shapes it was generated for, so it must be generated at the shapes the verifier
will use), and every failure becomes a one-line ``problem`` the coder reports instead of an
exception: a task the lowering cannot take is a result of the run, not a crash of the graph.

The lowering has two core modes: ``generated`` (every kernel generated: the ``lowered`` candidate)
and ``library`` (GEMM and conv cores kept as cuBLAS/cuDNN/oneDNN calls, the tail generated: the
``library`` candidate, *partial*). A task without a library form (no such core, or a single one
with nothing after it) gets no library candidate, and that is no problem.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, Iterator

# The origins recorded for candidates the lowering generated (attempts, best kernel, report):
# every kernel generated, and the library-core form (cores through torch, the tail generated).
LOWERED = "lowered"
LIBRARY = "library"
# region kinds whose core the library form keeps as a vendor call
CORE_KINDS = ("gemm", "conv")
# The origin of a candidate the lowering generated from sketches the (LLM) designer revised.
DESIGNED = "designed"


@dataclass
class Lowering:
    """What the lowering made of a task: the candidate (None for a plan only), its report, or why not."""

    code: str | None
    report: dict[str, Any] | None   # LoweringReport.to_dict(): kernels (name, kind, sketch), fallbacks, partial
    problem: str = ""               # "" when it worked
    absent: str = ""                # why there is no candidate when none is expected (no library form)
    sketch_error: dict[str, Any] | None = None  # {message, line, column} when a sketch failed (SketchError)


@contextlib.contextmanager
def task_scale(scale: str | None) -> Iterator[None]:
    """Set ``AKG_TASK_SCALE`` (the project's tasks read it at import) for the block; None leaves it."""
    if scale is None:
        yield
        return
    before = os.environ.get("AKG_TASK_SCALE")
    os.environ["AKG_TASK_SCALE"] = scale
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("AKG_TASK_SCALE", None)
        else:
            os.environ["AKG_TASK_SCALE"] = before


def lower(task_path: str, dsl: str, backend: str, scale: str | None, *, sketch_only: bool = False,
          cores: str = "generated", sketches: dict[str, str] | None = None,
          tuning_store: str | None = "", device: str | None = None) -> Lowering:
    """Run ``lower_task`` at ``scale`` in core mode ``cores`` (``sketches`` replace the emitted
    sketches of the kernels they name); any failure comes back as ``Lowering.problem`` (a
    SketchError also as ``sketch_error``), a task without a library form as ``Lowering.absent``.

    ``tuning_store`` (a file; None: the default one; "": none) gives kernels whose key is stored the
    stored tunables for this machine's ``backend`` device (``device`` such as ``cuda:1``)."""
    from akg_rag.errors import SketchError
    from akg_rag.lower.assemble import NoLibraryForm, lower_task

    try:
        tuning = None
        if tuning_store != "" and not sketch_only:
            from akg_rag.lower.tuned import StoredTuning
            from akg_rag.lower.tuning_store import TuningStore

            tuning = StoredTuning.for_backend(backend, TuningStore(tuning_store), device)
        with task_scale(scale):
            code, report = lower_task(task_path, dsl, backend, sketch_only=sketch_only, cores=cores,
                                      sketches=sketches or None, tuning=tuning)
    except NoLibraryForm as e:
        return Lowering(None, None, absent=str(e))
    except Exception as e:  # noqa: BLE001 - what the lowering cannot do is reported, never raised
        first = (str(e).strip().splitlines() or [""])[0]
        error = ({"message": e.message, "line": e.line, "column": e.column}
                 if isinstance(e, SketchError) else None)
        return Lowering(None, None, f"{type(e).__name__}: {first[:300]}", sketch_error=error)
    return Lowering(code, report.to_dict())


def has_core(report: dict[str, Any] | None) -> bool:
    """Whether a library form is worth trying after the generated lowering: it planned a GEMM or
    conv kernel, or it failed (the library form may still take the task)."""
    return report is None or any(k.get("kind") in CORE_KINDS for k in report.get("kernels", []))


def plan_of(report: dict[str, Any] | None, revised: Any = ()) -> list[dict[str, Any]]:
    """The designer's plan from a lowering report: one entry (name, kind, sketch, outputs, revised) per
    kernel; ``revised`` names the kernels whose sketch the designer wrote."""
    return [{"name": k["name"], "kind": k["kind"], "sketch": k["sketch"], "outputs": list(k["outputs"]),
             "revised": k["name"] in revised}
            for k in (report or {}).get("kernels", [])]


def plan_text(plan: list[dict[str, Any]]) -> str:
    """The plan's sketches, one after another (each parses on its own; the kernels run in this order)."""
    return "\n".join(p["sketch"].rstrip() + "\n" for p in plan)


def summary(report: dict[str, Any] | None) -> str:
    """One line: the generated kernels and, for a partial candidate, the ops left to torch."""
    if not report:
        return "nothing lowered"
    kernels = report.get("kernels", [])
    text = f"{len(kernels)} generated kernel(s): " + ", ".join(f"{k['name']} {k['kind']}" for k in kernels)
    stored = [k["name"] for k in kernels if (k.get("tuning") or {}).get("source") == "store"]
    if stored:
        text += f"; tuned config from store for {', '.join(stored)}"
    if report.get("library"):
        text += f"; library cores: {', '.join(report['library'])}"
    if report.get("fallbacks"):
        text += f"; partial: {', '.join(report['fallbacks'])} left to torch"
    return text
