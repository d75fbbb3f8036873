"""Pure routing: what the conductor decides from the state and the budgets.

Nothing here has a side effect or reads anything but its arguments, so every branch is unit-tested
on hand-made states. The conductor node (``conductor.py``) only applies the :class:`Decision`.

Rules, in order (docs/graph.md has the table):

* wall-clock budget spent -> finish with the best kernel so far;
* after the designer: a sketch that validated -> coder; a SketchError -> designer with its line and
  column (and, for revised plan sketches, the kernel), while designer rounds remain; with none left,
  the lowering's plan as it stands (emitted sketches where no revision lowered) goes to the coder;
* after a coder that produced no code: nothing to adapt -> finish (``no_match``); no more tunable
  variants -> finish; an answer without a code block -> coder again, while iterations remain;
* after the verifier: correct -> keep it if fastest, then analyst (another optimisation pass) or
  finish; a failure -> coder with the compiler excerpt / mismatch, or the designer for a new sketch
  after ``max_failures_per_sketch`` failures in a row on one sketch, or (optimisation phase) drop the
  variant and start the next pass from the best kernel. A candidate lowered from the chat designer's
  sketches has no code to fix: its failure goes to the designer, or, with no rounds left, the plan's
  emitted sketches are lowered instead, then the coder model writes code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from akg_rag.graph.context import Context
from akg_rag.graph.lowering import DESIGNED, LOWERED, plan_text
from akg_rag.graph.state import Feedback, State
from akg_rag.search.fitness import clearly_faster

# Longest feedback text handed to an agent (characters, ~750 tokens): compiler logs can be huge and
# the first errors are the ones that matter.
FEEDBACK_CHARS = 3000


@dataclass
class Decision:
    """The conductor's decision: where to go, what the next agent is told, and state changes."""

    route: str
    feedback: Feedback | None = None
    updates: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


def timings_meaningful(entry: dict[str, Any] | None) -> bool:
    """True when the entry's timings can rank candidates (measured, not the Triton interpreter)."""
    timings = (entry or {}).get("timings") or {}
    return timings.get("candidate_ms") is not None and timings.get("meaningful", True) is not False


def can_optimize(state: State, ctx: Context) -> tuple[bool, str]:
    """Whether another optimisation pass may start, and if not, why (one line)."""
    best = state.get("best")
    if not best:
        return False, "no verified kernel to optimise"
    if not timings_meaningful(best):
        return False, "timings are not meaningful on this backend (correctness only)"
    if state.get("opt_pass", 0) >= ctx.max_opt_passes:
        return False, f"optimisation pass budget ({ctx.max_opt_passes}) used"
    if state.get("passes_without_gain", 0) >= ctx.patience:
        return False, f"no gain of {ctx.min_gain:.0%} in the last {ctx.patience} pass(es)"
    if state.get("iteration", 0) >= ctx.max_iterations:
        return False, f"iteration budget ({ctx.max_iterations}) used"
    return True, ""


def format_result_feedback(result: dict[str, Any]) -> str:
    """The text a coder reads about a failed verification: status, excerpt, mismatch."""
    status = result.get("status", "unknown")
    parts = [f"Verification status: {status}."]
    if result.get("feedback"):
        parts.append(str(result["feedback"]).strip())
    mismatch = result.get("mismatch")
    if mismatch:
        details = ", ".join(f"{k}={v}" for k, v in mismatch.items() if not isinstance(v, (dict, list)))
        parts.append(f"Mismatch: {details}")
    for violation in result.get("guard_violations") or []:
        parts.append(f"Guard violation {violation.get('name')}: {violation.get('detail')}")
    text = "\n".join(parts)
    if len(text) > FEEDBACK_CHARS:
        text = text[:FEEDBACK_CHARS] + "\n... (truncated)"
    return text


def _finish(state: State, reason: str, updates: dict[str, Any] | None = None) -> Decision:
    return Decision(route="finish", updates=dict(updates or {}), reason=reason)


def _after_designer(state: State, ctx: Context) -> Decision:
    error = state.get("sketch_error")
    if not error:
        return Decision(route="coder", updates={"failures_on_sketch": 0}, reason="sketch validated")
    where = f"line {error.get('line', 0)}, column {error.get('column', 0)}"
    text = f"The sketch does not validate at {where}: {error.get('message', '')}"
    if "kernels" in error:  # revisions of the lowering's plan, named by kernel
        text = (f"Your revised sketches did not validate or lower: {error.get('message', '')}. Until one "
                "does, each of those kernels keeps its previous sketch.")
    if state.get("designer_rounds", 0) >= ctx.max_designer_rounds:
        plan = state.get("plan") or []
        if plan:  # every sketch in the plan lowers: the emitted ones, and revisions that were accepted
            return Decision(route="coder", reason=f"designer round budget ({ctx.max_designer_rounds}) used; "
                                                  f"lowering the plan as it stands (last error at {where})",
                            updates={"failures_on_sketch": 0, "implement": "lower", "sketch_error": None,
                                     "sketch": plan_text(plan)})
        return _finish(state, f"designer round budget ({ctx.max_designer_rounds}) used without a valid "
                              f"sketch; last error at {where}")
    return Decision(route="designer", feedback=Feedback(to="designer", kind="sketch_error", text=text),
                    reason=f"sketch error at {where}")


def _after_coder(state: State, ctx: Context) -> Decision:
    outcome = state.get("coder_outcome", "")
    note = state.get("coder_note", "")
    if outcome == "no_match":
        return _finish(state, note or "nothing in the knowledge base matches this task")
    if outcome == "exhausted":
        return _finish(state, note or "no untried variants left")
    if state.get("iteration", 0) >= ctx.max_iterations:
        return _finish(state, f"iteration budget ({ctx.max_iterations}) used")
    text = note or "Your answer contained no code block; answer with one ```python block defining ModelNew."
    return Decision(route="coder", feedback=Feedback(to="coder", kind="no_code", text=text),
                    reason="coder answer had no code")


def _after_correct(state: State, ctx: Context, result: dict[str, Any]) -> Decision:
    best = state.get("best")
    entry = {
        "code": state.get("candidate", ""),
        "sketch": state.get("sketch", ""),
        "timings": result.get("timings"),
        "iteration": state.get("iteration", 0),
        "origin": state.get("candidate_origin", ""),
        "review": bool(result.get("review")),
        # torch still computes part of the work: reported, never stored as a full kernel
        "partial": bool(result.get("partial")),
        "partial_ops": list(result.get("partial_ops") or []),
    }
    updates: dict[str, Any] = {"failures_on_sketch": 0}
    # Ranked by the speedup's interval, not single medians: a variant replaces the best only when
    # its lower bound clears the best's upper bound (see search.fitness.clearly_faster).
    new_t, best_t = entry["timings"], (best or {}).get("timings")
    if best is None or clearly_faster(new_t, best_t):
        updates["best"] = entry
    if state.get("phase", "functional") == "optimize":
        gained = best is not None and clearly_faster(new_t, best_t, ctx.min_gain)
        updates["passes_without_gain"] = 0 if gained else state.get("passes_without_gain", 0) + 1
    updates["phase"] = "optimize"
    after = {**state, **updates}
    ok, why = can_optimize(after, ctx)  # type: ignore[arg-type]
    if ok:
        return Decision(route="analyst", updates=updates, reason="correct; next optimisation pass")
    return _finish(state, f"optimisation stopped: {why}", updates)


def _after_failure(state: State, ctx: Context, result: dict[str, Any]) -> Decision:
    failures = state.get("failures_on_sketch", 0) + 1
    updates: dict[str, Any] = {"failures_on_sketch": failures}
    status = result.get("status", "failed")
    if state.get("iteration", 0) >= ctx.max_iterations:
        return _finish(state, f"iteration budget ({ctx.max_iterations}) used; last attempt {status}", updates)
    from_llm = state.get("candidate_origin") == "llm"
    if state.get("phase") != "optimize" and state.get("implement") == "lower" \
            and state.get("candidate_origin") in (DESIGNED, LOWERED):
        return _after_lowered_failure(state, ctx, result, updates)
    if state.get("phase") == "optimize":
        if from_llm and failures < ctx.max_failures_per_sketch:
            return Decision(route="coder", updates=updates, reason=f"{status}; fix the variant",
                            feedback=Feedback(to="coder", kind=status, text=format_result_feedback(result)))
        # Drop the variant: the next pass starts again from the best kernel.
        updates.update(failures_on_sketch=0, passes_without_gain=state.get("passes_without_gain", 0) + 1)
        ok, why = can_optimize({**state, **updates}, ctx)  # type: ignore[arg-type]
        if ok:
            return Decision(route="analyst", updates=updates, reason=f"variant {status}; next pass")
        return _finish(state, f"optimisation stopped: {why}", updates)
    if from_llm and failures >= ctx.max_failures_per_sketch:
        if state.get("designer_rounds", 0) < ctx.max_designer_rounds:
            text = (f"{failures} attempts in a row failed on this sketch; design a different one.\n"
                    + format_result_feedback(result))
            updates["failures_on_sketch"] = 0
            return Decision(route="designer", updates=updates, reason=f"{failures} failures; redesign",
                            feedback=Feedback(to="designer", kind="redesign", text=text))
    return Decision(route="coder", updates=updates, reason=f"{status}; back to the coder",
                    feedback=Feedback(to="coder", kind=status, text=format_result_feedback(result)))


def _after_lowered_failure(state: State, ctx: Context, result: dict[str, Any],
                           updates: dict[str, Any]) -> Decision:
    """A candidate lowered from the plan's sketches failed: the designer revises them (nothing in
    the code is the coder's to fix); with no rounds left, the emitted plan, then the coder model."""
    status = result.get("status", "failed")
    revised = sorted(state.get("revisions") or {})
    which = f"your sketches for {', '.join(revised)}" if revised else "the plan's sketches"
    updates = {**updates, "failures_on_sketch": 0}
    if state.get("designer_rounds", 0) < ctx.max_designer_rounds:
        text = (f"The candidate lowered from {which} failed verification; revise the sketches (or answer "
                "with one sketch naming no kernel to have the coder write code).\n" + format_result_feedback(result))
        return Decision(route="designer", updates=updates, reason=f"{status}; the designer revises {which}",
                        feedback=Feedback(to="designer", kind=status, text=text))
    if revised and not state.get("lowered"):
        return Decision(route="coder", updates={**updates, "revisions": {}},
                        reason=f"{status}; designer rounds used, lowering the emitted plan")
    return Decision(route="coder", updates={**updates, "implement": "code"},
                    reason=f"{status}; designer rounds used, the coder writes code",
                    feedback=Feedback(to="coder", kind=status, text=format_result_feedback(result)))


def decide(state: State, ctx: Context) -> Decision:
    """The conductor's decision after the designer, the coder or the verifier (see module docstring)."""
    if state.get("elapsed_s", 0.0) >= ctx.max_wall_s:
        return _finish(state, f"wall-clock budget ({ctx.max_wall_s:.0f} s) used")
    last = state.get("last_step", "")
    if last == "designer":
        return _after_designer(state, ctx)
    if last == "coder":
        return _after_coder(state, ctx)
    result = state.get("last_result") or {}
    if result.get("status") == "correct":
        return _after_correct(state, ctx, result)
    return _after_failure(state, ctx, result)


def route_from_conductor(state: State) -> str:
    """Conditional edge out of the conductor: the route it decided."""
    return state.get("route", "finish")


def route_after_coder(state: State) -> str:
    """Conditional edge out of the coder: a candidate goes to the verifier, anything else to the conductor."""
    return "verifier" if state.get("coder_outcome") == "code" else "conductor"
