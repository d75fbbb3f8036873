"""Per-node bookkeeping shared by every node: the progress event and the wall-clock accounting."""

from __future__ import annotations

import functools
import time
from typing import Any, Callable


def event(node: str, status: str, detail: str = "", **extra: Any) -> dict[str, Any]:
    """One progress record: which node ran, its outcome, a short detail and any JSON extras."""
    return {"node": node, "status": status, "detail": detail, **extra}


def timed(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Wrap a node so its update carries the seconds it took (summed into ``elapsed_s``).

    The wrapper keeps the node's signature, which LangGraph reads to inject the runtime.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
        start = time.monotonic()
        update = fn(*args, **kwargs)
        update["elapsed_s"] = time.monotonic() - start
        return update

    return wrapper
