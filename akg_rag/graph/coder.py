"""The ``coder`` node: writes the candidate (``ModelNew``) the verifier checks next.

With a chat model: a prompt with the task, the validated sketch, the retrieved kernels and documents
(within the token budget), the current best kernel and the analyst's recommendations in the
optimisation phase, and the targeted feedback on the previous attempt; the candidate is the answer's
code block. Without one:

* functional phase -- adapt the best untried retrieved kernel that computes the task (``adapt.py``);
  with none left, say so plainly (``no_match``) instead of emitting code that cannot work;
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


def _no_match_message(state: State, skipped: list[str]) -> str:
    a = state.get("analysis", {})
    target = f"{state['dsl']}/{state['backend']}"
    why = f" (skipped: {'; '.join(skipped)})" if skipped else ""
    return (f"no verified {target} kernel in the knowledge base computes {a.get('op_name')}{why}; "
            f"configure a chat model with --llm PROVIDER:MODEL, or ingest a {target} kernel for this "
            f"op with akg-ingest")


def _deterministic(state: State, task_source: str, scale: str | None = None) -> dict[str, Any]:
    """The no-LLM coder: adapt a retrieved kernel, or mutate the best one's tunables.

    Tunable moves that cannot change the executed code at the task's shapes (a threshold no problem
    size crosses) are skipped, and the note says how many.
    """
    best = state.get("best")
    if state.get("phase") == "optimize" and best:
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
        return {"coder_outcome": "code", "candidate": variant.code,
                "candidate_origin": f"mutation:{variant.change}",
                "tried_variants": [*tried, variant.settings], "coder_note": f"tunable {variant.change}{why}"}
    tried_hits = list(state.get("tried_hits", []))
    adapted, skipped = pick_and_adapt(task_source, state["analysis"], state.get("kernel_hits", []), tried_hits)
    if adapted is None:
        if tried_hits:
            return {"coder_outcome": "exhausted",
                    "coder_note": f"none of the {len(tried_hits)} matching retrieved kernel(s) verified "
                                  f"on this task; configure --llm PROVIDER:MODEL to write one"}
        return {"coder_outcome": "no_match", "coder_note": _no_match_message(state, skipped)}
    return {"coder_outcome": "code", "candidate": adapted.code, "candidate_origin": adapted.hit_id,
            "tried_hits": [*tried_hits, adapted.hit_id], "coder_note": adapted.note}


@timed
def coder(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Produce the next candidate; record what it was given (feedback, retrieved ids)."""
    ctx = runtime.context
    iteration = state.get("iteration", 0) + 1
    task_source = read_source(state["task_path"])
    model = get_chat_model(ctx)
    feedback = state.get("feedback") if (state.get("feedback") or {}).get("to") == "coder" else None
    if model is None:
        update = _deterministic(state, task_source, getattr(get_verify_options(ctx), "scale", None))
        ids = {"kernel_ids": [update["candidate_origin"]] if update.get("candidate_origin", "").startswith("kernel:")
               else [], "doc_ids": []}
    else:
        prompt, packed = coder_prompt(state, ctx, task_source)
        answer = model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)])
        code = extract_candidate(str(answer.content))
        ids = {"kernel_ids": packed.kernel_ids, "doc_ids": packed.doc_ids}
        update = ({"coder_outcome": "code", "candidate": code, "candidate_origin": "llm", "coder_note": ""}
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
