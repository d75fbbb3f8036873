"""The designer's revisions of the lowering's plan: which revised sketches lower, and why the others do not.

With a chat model the designer is shown the plan (one emitted sketch per kernel, from
``lower_task(..., sketch_only=True)``) and may answer with a revised sketch for any kernel. Each
revision is checked the way the coder will use it: ``lower_task`` with the revisions accepted so far
plus this one, which parses and validates it, binds it to the region's tensors and lowers it with
the target's backend. A revision that fails is a model mistake, named by its kernel (message, line,
column), that goes back to the designer; the kernel keeps its previous sketch meanwhile (the emitted
one, or a revision accepted in an earlier round), so the plan in state always lowers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from akg_rag.graph.lowering import lower


@dataclass
class Revision:
    """The outcome of checking a designer's revised sketches against the plan."""

    accepted: dict[str, str] = field(default_factory=dict)      # every accepted revision: kernel -> sketch
    new: list[str] = field(default_factory=list)                # kernels revised (and accepted) this round
    errors: list[dict[str, Any]] = field(default_factory=list)  # {kernel, message, line, column}


def check_revisions(task_path: str, dsl: str, backend: str, scale: str | None,
                    previous: dict[str, str], proposed: dict[str, str]) -> Revision:
    """Accept each proposed sketch that lowers together with the revisions accepted before it.

    One trial lowering per proposed kernel (a capture and the backend's code generation, well under
    a second once torch is warm), so that every failure is attributed to its kernel."""
    out = Revision(accepted=dict(previous))
    for name, text in proposed.items():
        trial = lower(task_path, dsl, backend, scale, sketches={**out.accepted, name: text})
        if trial.code is not None:
            out.accepted[name] = text
            out.new.append(name)
            continue
        where = trial.sketch_error or {"message": trial.problem, "line": 0, "column": 0}
        out.errors.append({"kernel": name, **where})
    return out


def merge(plan: list[dict[str, Any]], revisions: dict[str, str]) -> list[dict[str, Any]]:
    """The plan with each revised kernel's sketch in place of its previous one (marked ``revised``)."""
    return [{**p, "sketch": revisions[p["name"]], "revised": True} if p["name"] in revisions else dict(p)
            for p in plan]


def sketch_error(errors: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The state's ``sketch_error`` for failed revisions: the first one's position, every one's message."""
    if not errors:
        return None
    first = errors[0]
    text = "; ".join((f"the sketch for {e['kernel']}" if e["kernel"] else "the answer")
                     + (f" (line {e['line']}, column {e['column']})" if e.get("line") else "")
                     + f": {e['message']}" for e in errors)
    return {"message": text, "line": first.get("line", 0), "column": first.get("column", 0),
            "kernels": [e["kernel"] for e in errors if e["kernel"]]}
