"""Resolving the context's services: the injected object, else one built from the settings.

Building a store or loading the embedding model costs seconds, so what is built from settings is
kept per settings value for the life of the process (a run calls these from several nodes).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from akg_rag.graph.context import Context


@functools.cache
def _store(data_dir: str | None, url: str | None) -> Any:
    from akg_rag.store import make_store

    return make_store(data_dir=data_dir, url=url)


@functools.cache
def _embedder() -> Any:
    from akg_rag.embedding import make_embedder

    return make_embedder()


@functools.cache
def _chat_model(spec: str, base_url: str | None) -> Any:
    from akg_rag.graph.models import make_chat_model

    return make_chat_model(spec, base_url=base_url)


def get_store(ctx: Context) -> Any:
    """The injected knowledge store, else the one at ``ctx.chroma_url`` / ``ctx.data_dir``."""
    return ctx.store if ctx.store is not None else _store(ctx.data_dir, ctx.chroma_url)


def get_embedder(ctx: Context) -> Any:
    """The injected embedder, else the packaged sentence-transformers model."""
    return ctx.embedder if ctx.embedder is not None else _embedder()


def get_chat_model(ctx: Context) -> Any | None:
    """The injected chat model, else one built from ``ctx.llm``; None selects the deterministic policies."""
    if ctx.chat_model is not None:
        return ctx.chat_model
    return _chat_model(ctx.llm, ctx.base_url) if ctx.llm else None


def get_verify(ctx: Context) -> Callable[..., Any]:
    """The injected verify function, else :func:`akg_rag.verify.verify`."""
    if ctx.verify_fn is not None:
        return ctx.verify_fn
    from akg_rag.verify import verify

    return verify


def get_verify_options(ctx: Context) -> Any:
    """The injected ``VerifyOptions``, else the defaults with the context's task scale."""
    if ctx.verify_options is not None:
        return ctx.verify_options
    from akg_rag.verify import VerifyOptions

    return VerifyOptions(scale=ctx.scale)
