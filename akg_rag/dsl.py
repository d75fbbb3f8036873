"""The DSL/backend pairs akg-rag knows, and which of them can run on this machine."""

from __future__ import annotations

from typing import Literal, get_args

Dsl = Literal["triton", "cpp", "cuda_c", "tilelang"]
Backend = Literal["cuda", "cpu", "ascend"]

DSLS: tuple[str, ...] = get_args(Dsl)
BACKENDS: tuple[str, ...] = get_args(Backend)

# (dsl, backend) pairs with a meaning; the last one is documented knowledge only.
TARGETS: tuple[tuple[str, str], ...] = (
    ("triton", "cuda"),
    ("cpp", "cpu"),
    ("cuda_c", "cuda"),
    ("tilelang", "cuda"),
    ("triton", "cpu"),      # Triton's interpreter: correctness only
    ("triton", "ascend"),   # not runnable here
)


def check_target(dsl: str, backend: str) -> None:
    """Raise ``ConfigError`` listing the allowed pairs when ``(dsl, backend)`` is not one of them."""
    from akg_rag.errors import ConfigError

    if (dsl, backend) not in TARGETS:
        allowed = ", ".join(f"{d}/{b}" for d, b in TARGETS)
        raise ConfigError(f"unknown target {dsl}/{backend}; allowed: {allowed}")
