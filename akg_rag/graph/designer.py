"""The ``designer`` node: writes the Unified Sketch the coder implements.

Without a chat model the plan is the lowering's (``akg_rag.lower``): the task is cut into regions,
one kernel each, and each region's sketch is recorded (``plan``; ``sketch`` holds their texts in
launch order); the deterministic coder then lowers the same regions into code. Where the lowering
plans no kernel, the sketch is derived from the task analysis (``derive_sketch``) as before. With a
chat model, the model refines the derived sketch with the retrieved kernels' sketches in view.
Either way each sketch is validated with ``check_sketch`` before the coder sees it; a SketchError
(line, column) is stored as data and the conductor sends it back to the designer.

TODO(lowering): an LLM-written sketch is implemented by the LLM coder; it cannot yet be lowered by
the same pipeline, because ``lower_task`` takes no sketch text for a region (it emits its own).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from akg_rag.errors import SketchError
from akg_rag.graph import prompts
from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.extract import extract_sketch
from akg_rag.graph.lowering import lower, plan_of, plan_text
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


@timed
def designer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write (or rewrite) the sketch and validate it; errors become ``sketch_error``."""
    from akg_rag.sketch import check_sketch

    ctx = runtime.context
    rounds = state.get("designer_rounds", 0) + 1
    model = get_chat_model(ctx)
    ids: dict[str, list[str]] = {"kernel_ids": [], "doc_ids": []}
    plan: list[dict[str, Any]] = []
    note = ""
    if model is None:
        planned = lower(state["task_path"], state["dsl"], state["backend"], ctx.scale, sketch_only=True)
        plan = plan_of(planned.report)
        fallbacks = (planned.report or {}).get("fallbacks", [])
        note = (f"; lowering plans no kernel ({planned.problem or 'every op is a view or a torch fallback'})"
                if not plan else f"; partial: {', '.join(fallbacks)} left to torch" if fallbacks else "")
    if plan:
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
        "sketch_error": error,
        "designer_rounds": rounds,
        "last_step": "designer",
        "feedback": None,
        "events": [event("designer", status, detail, **ids)],
    }
