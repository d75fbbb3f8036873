"""The module-level graph that ``langgraph.json`` points LangGraph's tools (``langgraph dev``, Studio) at.

Those tools supply their own checkpointer and pass the run context as plain settings: ``llm``,
``base_url``, ``data_dir``, ``chroma_url``, ``scale`` and the budgets of
:class:`~akg_rag.graph.context.Context`. Services the context leaves unset are built from those
settings on first use, so importing this module opens no store and loads no model.
"""

from __future__ import annotations

from akg_rag.graph.graph import build_graph

graph = build_graph()
