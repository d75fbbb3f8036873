"""The ``verifier`` node: compile, check and time the candidate through the injected verify function.

The verify function runs the candidate in a child process (or behind an executor on another
machine): a compile error, crash or wrong result comes back as a ``VerifyResult``, never as an
exception here. Each verification becomes one attempt record for the report.
"""

from __future__ import annotations

import dataclasses

import hashlib
from typing import Any

from langgraph.runtime import Runtime

from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.services import get_verify, get_verify_options
from akg_rag.graph.state import State


def result_dict(result: Any) -> dict[str, Any]:
    """A ``VerifyResult`` (or its dict form, from an executor) as plain JSON."""
    return result if isinstance(result, dict) else result.to_dict()


def summarize(result: dict[str, Any]) -> str:
    """One line: status and, when timed, the candidate's median time and speedups."""
    timings = result.get("timings") or {}
    if result.get("status") == "correct" and timings.get("candidate_ms") is not None:
        from akg_rag.search.fitness import speedup_words

        parts = [f"{timings['candidate_ms']:.4g} ms"]
        for key, label in (("speedup_eager", "eager"), ("speedup_compile", "torch.compile")):
            if timings.get(key) is not None and timings.get("meaningful") is not False:
                parts.append(speedup_words(timings[key], timings.get(f"{key}_low"), timings.get(f"{key}_high"), label))
        if timings.get("meaningful") is False:
            parts.append("timing not meaningful here")
        return "correct: " + ", ".join(parts)
    first = (str(result.get("feedback") or "").strip().splitlines() or [""])[0]
    return f"{result.get('status')}: {first[:160]}"


@timed
def verifier(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Verify the current candidate and record the attempt."""
    ctx = runtime.context
    verify = get_verify(ctx)
    options = get_verify_options(ctx)
    if state["backend"] == "cuda" and getattr(options, "profile", None) is False:
        # on a GPU the analyst reads the profiler's kernel list: ask the verifier for it
        options = dataclasses.replace(options, profile=True)
    result = result_dict(verify(state["task_path"], candidate_source=state["candidate"], dsl=state["dsl"],
                                backend=state["backend"], options=options))
    given = state.get("coder_input") or {}
    attempt = {
        "iteration": state.get("iteration", 0),
        "phase": given.get("phase", state.get("phase", "functional")),
        "opt_pass": given.get("opt_pass", 0),
        "sketch_round": state.get("designer_rounds", 0),
        "origin": state.get("candidate_origin", ""),
        "feedback_received": given.get("feedback"),
        "kernel_ids": given.get("kernel_ids", []),
        "doc_ids": given.get("doc_ids", []),
        "code_hash": hashlib.sha256(state["candidate"].encode()).hexdigest()[:12],
        "status": result.get("status"),
        "feedback": result.get("feedback", ""),
        "mismatch": result.get("mismatch"),
        "timings": result.get("timings"),
        "guard_violations": result.get("guard_violations", []),
    }
    return {
        "last_result": result,
        "last_step": "verifier",
        "attempts": [attempt],
        "events": [event("verifier", str(result.get("status")), summarize(result))],
    }
