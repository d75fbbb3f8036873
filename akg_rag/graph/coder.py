"""The ``coder`` node: writes the candidate (``ModelNew``) the verifier checks next.

With a chat model: when the designer chose to have its sketches lowered (``implement = "lower"``),
the functional candidate is the lowering's, generated from the plan with the designer's revised
sketches (``lower_task(sketches=...)``), with no model call. Otherwise a prompt with the task, the
validated sketch, the retrieved kernels and documents (within the token budget), the current best
kernel and the analyst's recommendations in the optimisation phase, and the targeted feedback on the
previous attempt; the candidate is the answer's code block. Without a chat model:

* functional phase -- up to three candidates, all verified by the next verifier run, which keeps the
  fastest correct one: the best untried retrieved kernel that computes the task (``adapt.py``), and,
  once per run, the lowered candidate (``akg_rag.lower``: kernels generated from the task's region
  sketches) and, for a task with a GEMM or conv core and more to generate, its library form (the
  cores cuBLAS/cuDNN/oneDNN calls through torch, the tail generated: a partial candidate).
  With no reuse, the lowered candidate alone goes, so a task the knowledge base has never seen can
  still end verified; with neither, say so plainly (``no_match``) instead of emitting code that
  cannot work;
* optimisation phase -- the next untried tunable variant of the best kernel (``akg_rag.search.mutate``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from akg_rag.graph import prompts
from akg_rag.graph.adapt import pick_and_adapt
from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.extract import extract_candidate
from akg_rag.graph.lowering import DESIGNED, LIBRARY, LOWERED, has_core, lower, plan_of, plan_text, summary
from akg_rag.search.mutate import next_variant
from akg_rag.search.relevance import task_sizes
from akg_rag.search.tunables import settings
from akg_rag.graph.services import get_chat_model, get_verify_options
from akg_rag.graph.state import State
from akg_rag.task import read_source


def coder_prompt(state: State, ctx: Context, task_source: str) -> tuple[str, prompts.PackedContext]:
    """The coder's prompt and the retrieved material packed into it."""
    packed = prompts.pack_context(state.get("kernel_hits", []), state.get("doc_hits", []), ctx.context_tokens)
    current = ""
    best = state.get("best")
    if state.get("phase") == "optimize" and best:
        timings = best.get("timings") or {}
        current = (f"\n## Current best kernel ({timings.get('candidate_ms')} ms, "
                   f"{timings.get('speedup_eager')}x vs eager): make it faster\n"
                   f"```python\n{best['code'].strip()}\n```\n")
        recs = state.get("recommendations") or []
        if recs:
            current += "\n## Analyst recommendations\n" + "\n".join(f"- {r}" for r in recs) + "\n"
    text = prompts.CODER.format(
        dsl=state["dsl"], backend=state["backend"], dsl_rules=prompts.DSL_RULES.get(state["dsl"], ""),
        task_source=task_source.strip(), sketch=(state.get("sketch") or "(no sketch)").strip(),
        context=packed.text or "(nothing retrieved)", current=current,
        feedback=prompts.feedback_section(state.get("feedback"), "coder"))
    return text, packed


def _no_match_message(state: State, skipped: list[str], lowering_problem: str) -> str:
    a = state.get("analysis", {})
    target = f"{state['dsl']}/{state['backend']}"
    why = f" (skipped: {'; '.join(skipped)})" if skipped else ""
    lowered = f", and the lowering generated none ({lowering_problem})" if lowering_problem else ""
    return (f"no verified {target} kernel in the knowledge base computes {a.get('op_name')}{why}{lowered}; "
            f"configure a chat model with --llm PROVIDER:MODEL, or ingest a {target} kernel for this "
            f"op with akg-ingest")


def _optimize(state: State, scale: str | None = None) -> dict[str, Any]:
    """The next untried tunable variant of the best kernel.

    Tunable moves that cannot change the executed code at the task's shapes (a threshold no problem
    size crosses) are skipped, and the note says how many.
    """
    best = state["best"]
    tried = list(state.get("tried_variants", []))
    if settings(best["code"]) not in tried:
        tried.append(settings(best["code"]))
    skipped: list[Any] = []
    variant = next_variant(best["code"], tried, sizes=task_sizes(state["task_path"], scale), skipped=skipped)
    why = (f"; skipped {len(skipped)} move(s) that cannot change the executed code at this task's "
           f"shapes ({skipped[0].change}: {skipped[0].reason})") if skipped else ""
    if variant is None:
        return {"coder_outcome": "exhausted", "tried_variants": tried,
                "coder_note": f"no untried tunable variant of the best kernel{why}"}
    return {"coder_outcome": "code", "candidate": variant.code, "candidate_origin": f"mutation:{variant.change}",
            "alternatives": [], "tried_variants": [*tried, variant.settings],
            "coder_note": f"tunable {variant.change}{why}"}


def _functional(state: State, ctx: Context, task_source: str) -> dict[str, Any]:
    """The reused candidate (if any) and, once per run, the lowered one, for the verifier to compare."""
    tried_hits = list(state.get("tried_hits", []))
    adapted, skipped = pick_and_adapt(task_source, state["analysis"], state.get("kernel_hits", []), tried_hits)
    options: list[dict[str, Any]] = []
    update: dict[str, Any] = {}
    if adapted is not None:
        options.append({"code": adapted.code, "origin": adapted.hit_id, "note": f"reuse {adapted.hit_id}: {adapted.note}"})
        update["tried_hits"] = [*tried_hits, adapted.hit_id]
    problem = library_problem = ""
    if not state.get("lowered"):
        device = getattr(ctx.verify_options, "device", None)
        lowering = lower(state["task_path"], state["dsl"], state["backend"], ctx.scale,
                         tuning_store=ctx.tuning_store, device=device)
        update.update(lowered=True, lowering=lowering.report)
        same = [h["id"] for h in state.get("kernel_hits", []) if adapted and h["id"] == adapted.hit_id
                and h.get("code") == lowering.code]
        if same:  # the retrieved kernel is this lowering's own earlier output: verify it once
            options[0]["note"] += " (the same code as the lowered candidate)"
        elif lowering.code:
            options.append({"code": lowering.code, "origin": LOWERED, "note": f"lowered: {summary(lowering.report)}"})
        problem = lowering.problem
        if has_core(lowering.report):
            library = lower(state["task_path"], state["dsl"], state["backend"], ctx.scale, cores="library")
            update["library_lowering"] = library.report
            if library.code:
                options.append({"code": library.code, "origin": LIBRARY,
                                "note": f"library form: {summary(library.report)}"})
            elif library.problem:
                library_problem = library.problem
    if not options:
        if tried_hits or state.get("lowered"):
            return {**update, "coder_outcome": "exhausted",
                    "coder_note": f"none of the candidates verified on this task ({len(tried_hits)} retrieved "
                                  f"kernel(s){', the lowered one' if state.get('lowering') else ''}); "
                                  f"configure --llm PROVIDER:MODEL to write one"}
        return {**update, "coder_outcome": "no_match", "coder_note": _no_match_message(state, skipped, problem)}
    first, *rest = options
    notes = [o["note"] for o in options]
    if problem:
        notes.append(f"no lowered candidate ({problem})")
    if library_problem:
        notes.append(f"no library candidate ({library_problem})")
    if adapted is None and skipped:
        notes.append(f"no reuse (skipped: {'; '.join(skipped)})")
    return {**update, "coder_outcome": "code", "candidate": first["code"], "candidate_origin": first["origin"],
            "alternatives": rest, "coder_note": "; ".join(notes)}


def _lower_design(state: State, ctx: Context) -> dict[str, Any]:
    """The candidate the lowering generates from the plan's sketches, the designer's revisions in place.

    The designer already lowered each revision when it checked it, so a failure here is not the
    model's; it ends the run with the lowering's message."""
    revisions = dict(state.get("revisions") or {})
    lowering = lower(state["task_path"], state["dsl"], state["backend"], ctx.scale, sketches=revisions)
    update: dict[str, Any] = {"lowering": lowering.report, "alternatives": []}
    if not revisions:
        update["lowered"] = True  # the emitted plan: the deterministic coder need not offer it again
    if lowering.code is None:
        return {**update, "coder_outcome": "exhausted",
                "coder_note": f"the plan's sketches did not lower ({lowering.problem})"}
    plan = plan_of(lowering.report, revisions)
    what = (f"lowered from the designer's sketches for {', '.join(revisions)}" if revisions
            else "lowered from the plan's emitted sketches")
    return {**update, "coder_outcome": "code", "candidate": lowering.code,
            "candidate_origin": DESIGNED if revisions else LOWERED, "plan": plan, "sketch": plan_text(plan),
            "coder_note": f"{what}, no code written: {summary(lowering.report)}"}


def _deterministic(state: State, ctx: Context, task_source: str) -> dict[str, Any]:
    """The no-LLM coder: mutate the best kernel's tunables, or offer reused and lowered candidates."""
    if state.get("phase") == "optimize" and state.get("best"):
        return _optimize(state, getattr(get_verify_options(ctx), "scale", None))
    return _functional(state, ctx, task_source)


@timed
def coder(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Produce the next candidate; record what it was given (feedback, retrieved ids)."""
    ctx = runtime.context
    iteration = state.get("iteration", 0) + 1
    task_source = read_source(state["task_path"])
    model = get_chat_model(ctx)
    feedback = state.get("feedback") if (state.get("feedback") or {}).get("to") == "coder" else None
    if model is None:
        update = _deterministic(state, ctx, task_source)
        origins = [update.get("candidate_origin", "")] + [a["origin"] for a in update.get("alternatives", [])]
        ids = {"kernel_ids": [o for o in origins if o.startswith("kernel:")], "doc_ids": []}
    elif state.get("implement") == "lower" and state.get("phase", "functional") == "functional":
        update = _lower_design(state, ctx)
        ids = {"kernel_ids": [], "doc_ids": []}
    else:
        prompt, packed = coder_prompt(state, ctx, task_source)
        answer = model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)])
        code = extract_candidate(str(answer.content))
        ids = {"kernel_ids": packed.kernel_ids, "doc_ids": packed.doc_ids}
        update = ({"coder_outcome": "code", "candidate": code, "candidate_origin": "llm", "alternatives": [],
                   "coder_note": ""}
                  if code else
                  {"coder_outcome": "no_code", "coder_note":
                   "Your answer held no ```python block defining class ModelNew; answer with the complete file."})
    outcome = update["coder_outcome"]
    detail = f"attempt {iteration} ({state.get('phase', 'functional')}): {update.get('coder_note') or outcome}"
    return {
        **update,
        "iteration": iteration,
        "last_step": "coder",
        "feedback": None,
        "coder_input": {"iteration": iteration, "phase": state.get("phase", "functional"),
                        "opt_pass": state.get("opt_pass", 0), "feedback": feedback, **ids},
        "events": [event("coder", outcome, detail, **ids)],
    }
