"""Flags shared by the commands that verify many candidates or talk to a chat model.

``--executor local|ray`` and ``--ray-address`` (``bench``, ``search``, ``generate``) choose where
verifications run; ``--llm`` and ``--base-url`` (``search``) choose the chat model that steers
rewrites. Nothing heavy is imported until a handler asks for the executor or the model.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--executor`` and ``--ray-address``."""
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where verifications run: local child processes (default) or a Ray cluster "
                        "(pip install 'akg-rag[ray]'); Ray jobs carry the task and kernel sources, so "
                        "workers need no shared filesystem")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="Ray cluster to join, e.g. 10.0.0.5:6379 (default: RAY_ADDRESS, else a local "
                        "Ray instance started for this command)")


def executor_from_args(args: argparse.Namespace, jobs: int = 1) -> Any:
    """The executor the flags ask for (``jobs`` local processes, or the Ray cluster)."""
    from akg_rag.errors import ConfigError
    from akg_rag.verify.executor import make_executor

    if args.ray_address and args.executor != "ray":
        raise ConfigError("--ray-address needs --executor ray")
    return make_executor(args.executor, jobs=jobs, address=args.ray_address)


def add_llm_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--llm`` and ``--base-url``."""
    p.add_argument("--llm", metavar="PROVIDER:MODEL",
                   help="chat model that rewrites kernels steered by the analyst: openai:MODEL, "
                        "anthropic:MODEL, ollama:MODEL (default: tunable mutations only)")
    p.add_argument("--base-url", help="base URL of an OpenAI-compatible server or an Ollama host")
