"""The ``designer`` node: writes the Unified Sketch the coder implements.

Without a chat model the plan is the lowering's (``akg_rag.lower``): the task is cut into regions,
one kernel each, and each region's sketch is recorded (``plan``; ``sketch`` holds their texts in
launch order); the deterministic coder then lowers the same regions into code. Where the lowering
plans no kernel, the sketch is derived from the task analysis (``derive_sketch``) as before.

With a chat model and a plan, the model is shown the plan's sketches with the lowering's sketch
rules and may answer with a revised sketch per kernel (```sketch k0): each is checked by lowering
it (``revision.py``), and the coder lowers the accepted ones with the rest of the plan -- no
code-writing model call (``implement = "lower"``). A revision that does not validate or lower goes
back to the designer named by kernel, and that kernel keeps its previous sketch meanwhile. A sketch
block naming no kernel is a design for the coder to write as code (``implement = "code"``), as is
every sketch when the lowering plans no kernel (the model then refines the derived sketch).
Every sketch is validated before the coder sees it; a SketchError (line, column) is stored as data
and the conductor sends it back to the designer.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from akg_rag.errors import SketchError
from akg_rag.graph import prompts
from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.extract import extract_sketch, plan_sketches
from akg_rag.graph.lowering import lower, plan_of, plan_text
from akg_rag.graph.revision import check_revisions, merge, sketch_error
from akg_rag.graph.services import get_chat_model
from akg_rag.graph.state import State
from akg_rag.task import read_source


def derived_sketch(analysis_dict: dict[str, Any]) -> tuple[str, str]:
    """The deterministic sketch text for an analysis, and "" or the reason it could not be derived."""
    from akg_rag.analysis import TaskAnalysis
    from akg_rag.sketch import derive_sketch, print_sketch

    try:
        return print_sketch(derive_sketch(TaskAnalysis.from_dict(analysis_dict))), ""
    except SketchError as e:
        return "", str(e)


def designer_prompt(state: State, ctx: Context, derived: str) -> tuple[str, prompts.PackedContext]:
    """The designer's prompt (task, analysis, derived sketch, retrieved sketches, feedback) and what it packed."""
    a = state["analysis"]
    packed = prompts.pack_context(state.get("kernel_hits", []), state.get("doc_hits", []),
                                  ctx.context_tokens, with_code=False)
    return prompts.DESIGNER.format(
        language=prompts.SKETCH_LANGUAGE,
        op_name=a.get("op_name"),
        op_types=", ".join(a.get("op_types", [])),
        task_source=read_source(state["task_path"]).strip(),
        computation=a.get("computation", ""),
        shapes=[i.get("shape") for i in a.get("inputs", [])],
        dtype=a.get("dtype"),
        flops=a.get("flops"),
        min_bytes=a.get("min_bytes"),
        derived=derived.strip() or "(none could be derived)",
        context=packed.text or "(nothing retrieved)",
        feedback=prompts.feedback_section(state.get("feedback"), "designer"),
    ), packed


def plan_prompt(state: State, ctx: Context, plan: list[dict[str, Any]], fallbacks: list[str]
                ) -> tuple[str, prompts.PackedContext]:
    """The designer's prompt when the lowering has a plan: its sketches, the sketch rules, the task."""
    a = state["analysis"]
    packed = prompts.pack_context(state.get("kernel_hits", []), state.get("doc_hits", []),
                                  ctx.context_tokens, with_code=False)
    left = f"\nOps left to torch (not in any kernel): {', '.join(fallbacks)}." if fallbacks else ""
    return prompts.DESIGNER_PLAN.format(
        count=len(plan), dsl=state["dsl"], backend=state["backend"], language=prompts.SKETCH_LANGUAGE,
        rules=prompts.SKETCH_RULES, op_name=a.get("op_name"), op_types=", ".join(a.get("op_types", [])),
        task_source=read_source(state["task_path"]).strip(), computation=a.get("computation", ""),
        shapes=[i.get("shape") for i in a.get("inputs", [])], dtype=a.get("dtype"), flops=a.get("flops"),
        min_bytes=a.get("min_bytes"), fallbacks=left, plan=prompts.plan_section(plan),
        context=packed.text or "(nothing retrieved)",
        feedback=prompts.feedback_section(state.get("feedback"), "designer"),
    ), packed


def _revise(state: State, ctx: Context, model: Any, plan: list[dict[str, Any]],
            fallbacks: list[str]) -> dict[str, Any]:
    """Ask the model to revise the plan; accept what lowers, name what does not.

    Returns the designer's update without its bookkeeping (rounds, events): ``plan``, ``sketch``,
    ``revisions``, ``implement``, ``sketch_error``, and ``detail``/``ids`` for the event."""
    from akg_rag.sketch import check_sketch

    prompt, packed = plan_prompt(state, ctx, plan, fallbacks)
    ids = {"kernel_ids": packed.kernel_ids, "doc_ids": packed.doc_ids}
    answer = plan_sketches(str(model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)]).content),
                           [p["name"] for p in plan])
    previous = dict(state.get("revisions") or {})
    if answer.free and not answer.kernels and not answer.unknown:
        text = answer.free[-1]
        error = None
        try:
            check_sketch(text)
        except SketchError as e:
            error = {"message": e.message, "line": e.line, "column": e.column}
        return {"plan": plan, "sketch": text, "revisions": previous, "implement": "code", "sketch_error": error,
                "ids": ids, "detail": "a design for the coder to write as code"
                                      + (f": line {error['line']}, column {error['column']}: {error['message']}"
                                         if error else f" ({len(text.splitlines())} lines, validated)")}
    checked = check_revisions(state["task_path"], state["dsl"], state["backend"], ctx.scale, previous,
                              answer.kernels)
    kernels = ", ".join(p["name"] for p in plan)
    errors = checked.errors + [{"kernel": k, "message": f"the plan has no kernel named {k} (kernels: {kernels})",
                                "line": 0, "column": 0} for k in answer.unknown]
    if not answer.kernels and not answer.unknown:
        errors.append({"kernel": "", "message": "the answer holds no ```sketch block", "line": 0, "column": 0})
    merged = merge(plan, checked.accepted)
    error = sketch_error(errors)
    kept = [p["name"] for p in merged if p["name"] not in checked.accepted]
    detail = (f"revised {', '.join(checked.new) or 'nothing'}" + (f"; {', '.join(kept)} as planned" if kept else "")
              + (f"; {error['message']} (previous sketch kept meanwhile)" if error else ""))
    return {"plan": merged, "sketch": plan_text(merged), "revisions": checked.accepted, "implement": "lower",
            "sketch_error": error, "ids": ids, "detail": detail}


@timed
def designer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write (or rewrite) the sketch and validate it; errors become ``sketch_error``."""
    from akg_rag.sketch import check_sketch

    ctx = runtime.context
    rounds = state.get("designer_rounds", 0) + 1
    model = get_chat_model(ctx)
    ids: dict[str, list[str]] = {"kernel_ids": [], "doc_ids": []}
    planned = lower(state["task_path"], state["dsl"], state["backend"], ctx.scale, sketch_only=True)
    fallbacks = (planned.report or {}).get("fallbacks", [])
    plan = plan_of(planned.report)
    note = (f"; lowering plans no kernel ({planned.problem or 'every op is a view or a torch fallback'})"
            if not plan else f"; partial: {', '.join(fallbacks)} left to torch" if fallbacks else "")
    if model is not None and plan:
        revised = state.get("revisions") or {}
        update = _revise(state, ctx, model, merge(plan_of(planned.report, revised), revised), fallbacks)
        ids = update.pop("ids")
        detail = update.pop("detail")
        status = "sketch_error" if update["sketch_error"] else "ok"
        return {**update, "designer_rounds": rounds, "last_step": "designer", "feedback": None,
                "events": [event("designer", status, f"round {rounds} (llm, plan): {detail}{note}", **ids)]}
    if plan and model is None:
        text, source = plan_text(plan), "lowering"
        texts = [p["sketch"] for p in plan]
    elif model is None:
        derived, derive_problem = derived_sketch(state["analysis"])
        text, source, texts = derived, "derived", [derived]
    else:
        derived, derive_problem = derived_sketch(state["analysis"])
        prompt, packed = designer_prompt(state, ctx, derived)
        ids = {"kernel_ids": packed.kernel_ids, "doc_ids": packed.doc_ids}
        answer = model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)])
        text = extract_sketch(str(answer.content)) or ""
        source, texts = "llm", [text]
    error: dict[str, Any] | None = None
    if not text:
        message = ("the answer holds no ```sketch block" if source == "llm"
                   else f"no sketch could be derived from the task analysis: {derive_problem}")
        error = {"message": message, "line": 0, "column": 0}
    else:
        try:
            for one in texts:
                check_sketch(one)
        except SketchError as e:
            error = {"message": e.message, "line": e.line, "column": e.column}
    status = "sketch_error" if error else "ok"
    validated = (f"{len(plan)} region sketch(es) validated: "
                 + ", ".join(f"{p['name']} {p['kind']}" for p in plan) if plan
                 else f"{len(text.splitlines())}-line sketch validated")
    detail = (f"round {rounds} ({source}): "
              + (f"line {error['line']}, column {error['column']}: {error['message']}" if error else validated)
              + note)
    if error:
        plan = []
    if error and source in ("derived", "lowering"):
        # Deriving again would give the same text: go on without a sketch (the deterministic
        # coder adapts retrieved kernels and does not need one) and say so in the event.
        text, error, status = "", None, "no_sketch"
    return {
        "sketch": text,
        "plan": plan,
        **({"implement": "code"} if source == "llm" else {}),
        "sketch_error": error,
        "designer_rounds": rounds,
        "last_step": "designer",
        "feedback": None,
        "events": [event("designer", status, detail, **ids)],
    }
