"""The ``retrieve`` node: analyse the task, then fetch kernels and documents for its target.

Task analysis is deterministic (no LLM); its record goes into the state for every later node. The
three-stage retrieval ranks kernels of the requested DSL/backend and op type by computation logic and
shape compatibility; documents come from the same query, filtered to the DSL and backend.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langgraph.runtime import Runtime

from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.services import get_embedder, get_store
from akg_rag.graph.state import State


def kernel_hit_to_dict(hit: Any) -> dict[str, Any]:
    """The parts of a ``KernelHit`` the agents read, as plain JSON."""
    meta = hit.metadata or {}
    return {
        "id": hit.id,
        "op_name": hit.op_name,
        "score": float(hit.score),
        "semantic_score": float(hit.semantic_score),
        "shape_score": None if hit.shape_score is None else float(hit.shape_score),
        "computation": meta.get("computation", ""),
        # input and output shapes of the kernel's task: reuse compares their structure (adapt.py)
        "shapes": meta.get("shapes"),
        "output_shapes": meta.get("output_shapes"),
        "sketch": meta.get("sketch", ""),
        "speedup_eager": meta.get("speedup_eager"),
        "origin": meta.get("origin", ""),
        "code": hit.code or meta.get("code", ""),
    }


def rank_slow_last(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Hits in retrieval order, except kernels measured slower than eager go after the rest.

    Such a kernel is still correct and may be the only match, but it must not be the example the
    coder adapts first or the prompt shows first when a faster one was retrieved.
    """
    slow = [h for h in hits if isinstance(h.get("speedup_eager"), (int, float)) and h["speedup_eager"] < 1.0]
    return [h for h in hits if h not in slow] + slow


def doc_hit_to_dict(doc: Any) -> dict[str, Any]:
    """The parts of a ``DocHit`` the prompts use, as plain JSON."""
    return {"id": doc.id, "heading": doc.heading, "text": doc.text, "source": doc.source,
            "score": float(doc.score)}


@timed
def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Analyse the task and retrieve the top kernels and document chunks for its DSL/backend."""
    from akg_rag.analysis import analyze_task
    from akg_rag.retrieval.pipeline import Retriever

    ctx = runtime.context
    analysis = analyze_task(state["task_path"])
    retriever = Retriever(get_store(ctx), get_embedder(ctx))
    # Hard filters: the requested DSL and backend, and the task's primary op type.
    result = retriever.search_task(analysis, dsl=state["dsl"], backend=state["backend"],
                                   op_type=analysis.op_type, k=ctx.k_kernels, docs=ctx.k_docs)
    hits = rank_slow_last([kernel_hit_to_dict(h) for h in result.hits[: ctx.k_kernels]])
    docs = [doc_hit_to_dict(d) for d in result.docs[: ctx.k_docs]]
    detail = f"{analysis.op_name} ({analysis.op_type}): {len(hits)} kernel(s), {len(docs)} doc chunk(s)"
    return {
        "analysis": analysis.to_dict(),
        "kernel_hits": hits,
        "doc_hits": docs,
        "retrieval_report": [asdict(s) for s in result.stages],
        "phase": "functional",
        "status": "running",
        "events": [event("retrieve", "ok", detail, kernel_ids=[h["id"] for h in hits],
                         doc_ids=[d["id"] for d in docs])],
    }
