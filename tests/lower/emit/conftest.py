"""Helpers of the emitter tests: emit a region, validate the sketch, run it with the reference
interpreter on tiny tensors, and evaluate Expr trees directly with torch."""

from __future__ import annotations

import pytest
import torch

from akg_rag.lower import interp_ops as ops
from akg_rag.lower.emit import emit_sketch
from akg_rag.lower.interp import run_sketch
from akg_rag.lower.region import Expr
from akg_rag.sketch import check_sketch


def _poison(shape: tuple[int, ...], dtype: str) -> torch.Tensor:
    """An output buffer whose unwritten elements show (NaN, or a sentinel integer)."""
    dt = getattr(torch, dtype)
    if dt.is_floating_point:
        return torch.full(shape, float("nan"), dtype=dt)
    return torch.full(shape, -7 if dt != torch.bool else True, dtype=dt)


def emit_and_run(region, tensors: dict[str, torch.Tensor], params: dict | None = None,
                 **target) -> dict[str, torch.Tensor]:
    """Outputs of ``region`` computed by its emitted sketch under the interpreter; ``params``
    entries the sketch does not declare are ignored (forms differ in their tunables); ``target``:
    ``emit_sketch``'s target flags (``barriers``, ``tensor_cores``)."""
    text = emit_sketch(region, "k0", **target)
    sk = check_sketch(text)
    declared = {p.name for p in sk.params}
    outs = {o.value.name: _poison(o.value.shape, o.value.dtype) for o in region.outputs}
    run_sketch(sk, {**tensors, **outs}, {k: v for k, v in (params or {}).items() if k in declared})
    return outs


def eval_expr(e: Expr, env: dict[str, torch.Tensor]) -> torch.Tensor:
    """``e`` evaluated with torch: inputs, ``acc``, ``reduced`` and ``numel`` leaves from ``env``."""
    if e.op == "const":
        return ops.as_tensor(e.value)
    if e.op == "input" or e.op == "reduced":
        return env[e.ref]  # type: ignore[index]
    if e.op in ("acc", "numel"):
        return env[e.op]
    args = [eval_expr(a, env) for a in e.args]
    if e.op == "cast":
        return args[0].to(getattr(torch, e.dtype or "float32"))
    if e.op == "where":
        return ops.where(*args)
    if e.op in ops.UNARY:
        return ops.UNARY[e.op](args[0])
    return ops.BINARY[e.op](args[0], args[1])


@pytest.fixture
def run():
    return emit_and_run


@pytest.fixture
def evaluate():
    return eval_expr
