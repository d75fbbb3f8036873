"""The controlled vocabulary of operator types and how a fused task picks its primary one."""

from __future__ import annotations

from typing import Iterable, Literal, get_args

OpType = Literal[
    "elementwise",
    "reduction",
    "normalization",
    "softmax",
    "matmul",
    "conv",
    "pooling",
    "scan",
    "loss",
    "attention",
    "indexing",
]

OP_TYPES: tuple[str, ...] = get_args(OpType)

# Highest priority first: a fused gemm + bias + relu is a "matmul" task that also has "elementwise".
PRIORITY: tuple[str, ...] = (
    "attention",
    "conv",
    "matmul",
    "normalization",
    "softmax",
    "pooling",
    "scan",
    "loss",
    "reduction",
    "indexing",
    "elementwise",
)


def primary_op_type(op_types: Iterable[str]) -> str:
    """Return the highest-priority type among ``op_types`` ("elementwise" when empty)."""
    present = set(op_types)
    unknown = present - set(OP_TYPES)
    if unknown:
        raise ValueError(f"unknown op type(s) {sorted(unknown)}; allowed: {', '.join(OP_TYPES)}")
    for t in PRIORITY:
        if t in present:
            return t
    return "elementwise"


def sort_op_types(op_types: Iterable[str]) -> list[str]:
    """Deduplicate ``op_types`` and order them by priority (primary first)."""
    present = set(op_types)
    return [t for t in PRIORITY if t in present]
