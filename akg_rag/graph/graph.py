"""Wiring the agents into a LangGraph ``StateGraph``, and running it.

```
START -> retrieve -> designer -> conductor
conductor -> coder | designer | analyst | finish        (routing.route_from_conductor)
coder -> verifier | conductor                           (routing.route_after_coder)
verifier -> conductor;  analyst -> coder;  finish -> END
```
Every node takes ``(state, runtime)`` and reads its services and budgets from ``runtime.context``
(a :class:`~akg_rag.graph.context.Context` passed at invoke time), so one compiled graph serves any
chat model, store or verifier.
"""

from __future__ import annotations

from typing import Any, Iterator

from langgraph.graph import END, START, StateGraph

from akg_rag.graph.analyst import analyst
from akg_rag.graph.coder import coder
from akg_rag.graph.conductor import conductor
from akg_rag.graph.context import Context
from akg_rag.graph.designer import designer
from akg_rag.graph.finish import finish
from akg_rag.graph.retrieve import retrieve
from akg_rag.graph.routing import route_after_coder, route_from_conductor
from akg_rag.graph.state import InputState, State
from akg_rag.graph.verifier import verifier

NODES: tuple[str, ...] = ("retrieve", "designer", "coder", "verifier", "analyst", "conductor", "finish")


def build_graph(*, checkpointer: Any = None) -> Any:
    """Compile the generation graph; pass a LangGraph checkpointer (e.g. ``SqliteSaver``) to resume runs."""
    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node("retrieve", retrieve)
    builder.add_node("designer", designer)
    builder.add_node("coder", coder)
    builder.add_node("verifier", verifier)
    builder.add_node("analyst", analyst)
    builder.add_node("conductor", conductor)
    builder.add_node("finish", finish)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "designer")
    builder.add_edge("designer", "conductor")
    builder.add_conditional_edges("conductor", route_from_conductor,
                                  ["coder", "designer", "analyst", "finish"])
    builder.add_conditional_edges("coder", route_after_coder, ["verifier", "conductor"])
    builder.add_edge("verifier", "conductor")
    builder.add_edge("analyst", "coder")
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer, name="akg-rag generate")


def run_config(context: Context, thread_id: str | None = None) -> dict[str, Any]:
    """The invoke config: the budget-derived recursion limit and, with a checkpointer, the thread."""
    config: dict[str, Any] = {"recursion_limit": context.recursion_limit()}
    if thread_id:
        config["configurable"] = {"thread_id": thread_id}
    return config


def stream_run(graph: Any, inputs: dict[str, Any] | None, context: Context,
               thread_id: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Run (``inputs``) or resume (``inputs=None``) and yield ``(node, update)`` as each node finishes.

    Checkpoints are written synchronously, so a run killed after a node's update resumes after it.
    """
    for chunk in graph.stream(inputs, run_config(context, thread_id), context=context,
                              stream_mode="updates", durability="sync"):
        for node, update in chunk.items():
            if node in NODES and isinstance(update, dict):
                yield node, update


def generate(task_path: str, *, dsl: str, backend: str, context: Context,
             checkpointer: Any = None, thread_id: str | None = None) -> dict[str, Any]:
    """Run the whole graph on a task and return the final state (the Python API's entry point).

    Without a checkpointer the run is kept in memory only (it cannot be resumed).
    """
    import uuid

    from langgraph.checkpoint.memory import InMemorySaver

    from akg_rag.dsl import check_target

    check_target(dsl, backend)
    graph = build_graph(checkpointer=checkpointer if checkpointer is not None else InMemorySaver())
    thread_id = thread_id or context.run_id or uuid.uuid4().hex[:12]
    inputs = {"task_path": str(task_path), "dsl": dsl, "backend": backend}
    for _ in stream_run(graph, inputs, context, thread_id):
        pass
    return dict(graph.get_state(run_config(context, thread_id)).values)
