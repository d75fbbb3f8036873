"""The ``conductor`` node: applies the pure routing decision (``routing.decide``) to the state.

It judges the output of the last agent (designer, coder or verifier), picks the next node, and hands
that node targeted feedback: the compiler excerpt or the mismatch to the coder, the SketchError's
line and column or a redesign request to the designer.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.routing import decide
from akg_rag.graph.state import State


@timed
def conductor(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Decide where the run goes next and with which feedback."""
    decision = decide(state, runtime.context)
    update: dict[str, Any] = {**decision.updates, "route": decision.route, "feedback": decision.feedback}
    if decision.route == "finish":
        update["message"] = decision.reason
    update["events"] = [event("conductor", decision.route, decision.reason, route=decision.route,
                              iteration=state.get("iteration", 0), after=state.get("last_step", ""))]
    return update
