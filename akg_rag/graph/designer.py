"""The ``designer`` node: writes the Unified Sketch the coder implements.

Without a chat model the sketch is derived from the task analysis (``derive_sketch``). With one, the
model refines the derived sketch with the retrieved kernels' sketches in view. Either way the text is
validated with ``check_sketch`` before the coder sees it; a SketchError (line, column) is stored as
data and the conductor sends it back to the designer.
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
    derived, derive_problem = derived_sketch(state["analysis"])
    model = get_chat_model(ctx)
    ids: dict[str, list[str]] = {"kernel_ids": [], "doc_ids": []}
    if model is None:
        text = derived
        source = "derived"
    else:
        prompt, packed = designer_prompt(state, ctx, derived)
        ids = {"kernel_ids": packed.kernel_ids, "doc_ids": packed.doc_ids}
        answer = model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)])
        text = extract_sketch(str(answer.content)) or ""
        source = "llm"
    error: dict[str, Any] | None = None
    if not text:
        message = ("the answer holds no ```sketch block" if source == "llm"
                   else f"no sketch could be derived from the task analysis: {derive_problem}")
        error = {"message": message, "line": 0, "column": 0}
    else:
        try:
            check_sketch(text)
        except SketchError as e:
            error = {"message": e.message, "line": e.line, "column": e.column}
    status = "sketch_error" if error else "ok"
    detail = (f"round {rounds} ({source}): "
              + (f"line {error['line']}, column {error['column']}: {error['message']}" if error
                 else f"{len(text.splitlines())}-line sketch validated"))
    if error and source == "derived":
        # Deriving again would give the same text: go on without a sketch (the deterministic
        # coder adapts retrieved kernels and does not need one) and say so in the event.
        text, error, status = "", None, "no_sketch"
    return {
        "sketch": text,
        "sketch_error": error,
        "designer_rounds": rounds,
        "last_step": "designer",
        "feedback": None,
        "events": [event("designer", status, detail, **ids)],
    }
