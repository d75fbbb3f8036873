"""Re-running recorded pointwise ops on small real tensors to tell what a chain of them computes.

A chain such as ``0.5 * x * (1 + tanh(0.79788 * (x + 0.044715 * x**3)))`` and ``F.gelu(x,
approximate="tanh")`` differ in their ops but not in their function. Replaying the chain on a fixed
probe (float64 values from -8 to 8) and comparing with a library of known activations names it
whatever way it was written.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch.utils._pytree import tree_flatten, tree_map

from akg_rag.analysis.trace import Ref

# 257 points over [-8, 8] (step 1/16): wide enough to separate relu from relu6 and hardtanh from
# clamp-like shapes, fine enough to separate gelu's erf and tanh forms (they differ by up to ~5e-4).
PROBE = torch.linspace(-8.0, 8.0, 257, dtype=torch.float64)
_ATOL = 1e-6
_RTOL = 1e-5

# Known unary functions, first match wins. Names are what the canonical text calls them.
LIBRARY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": F.relu,
    "relu6": F.relu6,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.01),
    "elu": F.elu,
    "selu": F.selu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "mish": F.mish,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "softsign": F.softsign,
    "softplus": F.softplus,
    "log_sigmoid": F.logsigmoid,
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "hardtanh": F.hardtanh,
    "tanhshrink": F.tanhshrink,
    "softshrink": F.softshrink,
    "hardshrink": F.hardshrink,
    "exp": torch.exp,
    "abs": torch.abs,
    "neg": torch.neg,
    "square": torch.square,
}
_REFERENCE = {name: fn(PROBE) for name, fn in LIBRARY.items()}


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.device) or (isinstance(value, str) and value == "meta"):
        return torch.device("cpu")
    return value


def run_node(g: Any, node: Any, env: dict[int, torch.Tensor]) -> list[torch.Tensor]:
    """Run one recorded op on real tensors taken from ``env`` (value id -> tensor); return its outputs."""

    def sub(x: Any) -> Any:
        if isinstance(x, Ref):
            return env[g.resolve(x.vid)]
        return _to_cpu(x)

    args = tree_map(sub, node.rec.args)
    kwargs = tree_map(sub, node.rec.kwargs)
    if "inplace" in node.rec.tags and args and isinstance(args[0], torch.Tensor):
        args = (args[0].clone(),) + tuple(args[1:])  # never mutate a value other ops still read
    out = node.rec.func(*args, **kwargs)
    return [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]


def evaluate(g: Any, nodes: list[Any], source: int, target: int) -> torch.Tensor | None:
    """Value of ``target`` as a function of ``source`` on the probe, or None when not replayable."""
    env: dict[int, torch.Tensor] = {source: PROBE}
    for node in nodes:
        for v in node.inputs:
            if v not in env:
                const = g.consts.get(v)
                if const is None:
                    return None
                env[v] = const
        try:
            outs = run_node(g, node, env)
        except Exception:  # noqa: BLE001 - an op that cannot be replayed leaves the chain unnamed
            return None
        for vid, t in zip(node.outputs, outs):
            env[vid] = t
    return env.get(target)


def identify(values: torch.Tensor | None) -> str | None:
    """The library function whose probe values match ``values``, or None."""
    if values is None or values.numel() != PROBE.numel() or not values.dtype.is_floating_point:
        return None
    flat = values.reshape(-1).to(torch.float64)
    for name, ref in _REFERENCE.items():
        if torch.allclose(flat, ref, rtol=_RTOL, atol=_ATOL, equal_nan=True):
            return name
    return None
