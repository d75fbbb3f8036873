"""The agent graph: retrieve, designer, coder, verifier, analyst and conductor in a LangGraph StateGraph.

Import :func:`akg_rag.graph.graph.build_graph` and :class:`akg_rag.graph.context.Context` directly;
this package module imports nothing, so ``akg_rag.graph.routing`` stays light for its tests.
"""
