"""The ``verifier`` node: compile, check and time the candidate through the injected verify function.

The verify function runs the candidate in a child process (or behind an executor on another
machine): a compile error, crash or wrong result comes back as a ``VerifyResult``, never as an
exception here. Each verifier run becomes one attempt record for the report.

When the coder offers alternatives beside the candidate (the deterministic coder's reused, lowered
and library candidates), each is verified and the fastest correct one is kept: it becomes the
candidate the conductor judges, and the attempt lists what it was compared with. A partial candidate
(torch still computes part of the work: a library core, a fallback) is kept over a full one only
when the verifier's timing intervals say it is clearly faster (:func:`keep_index`), and it is named
partial in the attempt and the event.
"""

from __future__ import annotations

import dataclasses

import hashlib
from typing import Any

from langgraph.runtime import Runtime

from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.lowering import DESIGNED, LIBRARY, LOWERED
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


def _ms(result: dict[str, Any]) -> float:
    """Median time of a correct result (ms); +inf when unmeasured, so measured ones rank first."""
    ms = (result.get("timings") or {}).get("candidate_ms")
    return float(ms) if ms is not None else float("inf")


def keep_index(results: list[dict[str, Any]]) -> int:
    """Which of several verified candidates to keep: the fastest correct one (the first on ties),
    else the first (the coder's own candidate, whose failure the conductor feeds back).

    A partial fastest one (torch computes a part: a library GEMM/conv core) displaces the fastest
    full kernel only when it is clearly faster by the verifier's speedup intervals (its lower bound
    above the full kernel's upper bound); where the timings mean nothing (the Triton interpreter)
    the full kernel stays. A full kernel can be written back; a partial one never is."""
    from akg_rag.search.fitness import clearly_faster

    correct = [i for i, r in enumerate(results) if r.get("status") == "correct"]
    if not correct:
        return 0
    fastest = min(correct, key=lambda i: (_ms(results[i]), i))
    full = [i for i in correct if not results[i].get("partial")]
    if not results[fastest].get("partial") or not full:
        return fastest
    best_full = min(full, key=lambda i: (_ms(results[i]), i))
    new, old = results[fastest].get("timings"), results[best_full].get("timings")
    meaningful = all(t and t.get("meaningful") is not False for t in (new, old))
    return fastest if meaningful and clearly_faster(new, old) else best_full


def _partial_note(result: dict[str, Any]) -> str:
    ops = result.get("partial_ops") or []
    return f" [partial: torch still computes {', '.join(ops)}]" if result.get("partial") else ""


@timed
def verifier(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Verify the current candidate (and the coder's alternatives), keep the best, record the attempt."""
    ctx = runtime.context
    verify = get_verify(ctx)
    options = get_verify_options(ctx)
    if state["backend"] == "cuda" and getattr(options, "profile", None) is False:
        # on a GPU the analyst reads the profiler's kernel list: ask the verifier for it
        options = dataclasses.replace(options, profile=True)
    candidates = [{"code": state["candidate"], "origin": state.get("candidate_origin", "")},
                  *state.get("alternatives", [])]
    results = [result_dict(verify(state["task_path"], candidate_source=c["code"], dsl=state["dsl"],
                                  backend=state["backend"], options=options)) for c in candidates]
    k = keep_index(results)
    kept, result = candidates[k], results[k]
    given = state.get("coder_input") or {}
    attempt = {
        "iteration": state.get("iteration", 0),
        "phase": given.get("phase", state.get("phase", "functional")),
        "opt_pass": given.get("opt_pass", 0),
        "sketch_round": state.get("designer_rounds", 0),
        "origin": kept["origin"],
        "feedback_received": given.get("feedback"),
        "kernel_ids": given.get("kernel_ids", []),
        "doc_ids": given.get("doc_ids", []),
        "code_hash": hashlib.sha256(kept["code"].encode()).hexdigest()[:12],
        "status": result.get("status"),
        "feedback": result.get("feedback", ""),
        "mismatch": result.get("mismatch"),
        "timings": result.get("timings"),
        "guard_violations": result.get("guard_violations", []),
        "partial": bool(result.get("partial")),
        "partial_ops": list(result.get("partial_ops") or []),
    }
    if kept["origin"] in (LOWERED, DESIGNED):
        attempt["fallbacks"] = list((state.get("lowering") or {}).get("fallbacks", []))
    elif kept["origin"] == LIBRARY:
        report = state.get("library_lowering") or {}
        attempt["fallbacks"] = list(report.get("fallbacks", []))
        attempt["library"] = list(report.get("library", []))
    if kept["origin"] == DESIGNED:
        attempt["revised"] = sorted(state.get("revisions") or {})  # kernels lowered from the designer's sketches
    detail = summarize(result) + _partial_note(result)
    if len(candidates) > 1:
        attempt["compared"] = [{"origin": c["origin"], "status": r.get("status"),
                                "candidate_ms": (r.get("timings") or {}).get("candidate_ms"),
                                "partial": bool(r.get("partial")), "kept": i == k}
                               for i, (c, r) in enumerate(zip(candidates, results))]
        others = "; ".join(f"{c['origin']}: {summarize(r)}" for i, (c, r) in enumerate(zip(candidates, results))
                           if i != k)
        detail = f"kept {kept['origin']}: {detail} (compared with {others})"
    return {
        "candidate": kept["code"],
        "candidate_origin": kept["origin"],
        "alternatives": [],
        "last_result": result,
        "last_step": "verifier",
        "attempts": [attempt],
        "events": [event("verifier", str(result.get("status")), detail)],
    }
