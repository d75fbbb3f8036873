"""Recording which torch operators a model calls, to tell kernels from torch doing the work.

A dispatch mode sees every aten op, including those a C++ extension calls through ATen. Ops that
only allocate, copy or re-view memory are not *compute*. Comparing the candidate's compute ops with
the reference's gives two verdicts: ``partial`` (torch still computes part of the work, allowed and
reported) and the ``torch_fallback`` guard (torch computes everything the reference computes, so the
custom kernel is decoration). Ops in other namespaces are custom operators (e.g. ``TORCH_LIBRARY``
extensions) and count as launches of the candidate's own kernels.
"""

from __future__ import annotations

from typing import Any

from torch.utils._python_dispatch import TorchDispatchMode

# Namespaces of torch's own operators; anything else is a custom (candidate) operator.
TORCH_NAMESPACES = {"aten", "prims", "prim", "_c10d_functional", "c10d", "profiler", "debugprims"}

NON_COMPUTE = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
    "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill", "zero",
    "copy", "clone", "contiguous", "_to_copy", "to", "view", "_unsafe_view", "reshape", "as_strided",
    "expand", "permute", "transpose", "t", "squeeze", "unsqueeze", "select", "slice", "narrow",
    "detach", "alias", "lift_fresh", "lift_fresh_copy", "_reshape_alias", "split", "split_with_sizes",
    "chunk", "unbind", "flatten", "unflatten", "resize", "set", "item", "_local_scalar_dense",
    "is_nonzero", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "arange", "randn",
    "rand", "randint", "normal", "uniform", "scalar_tensor", "expand_as", "view_as", "_copy_from",
    "_copy_from_and_resize", "record_stream", "is_same_size", "_has_compatible_shallow_copy_type",
    "dim", "size", "stride", "numel", "_empty_affine_quantized", "pin_memory", "_pin_memory",
}


def op_name(func: Any) -> tuple[str, str]:
    """(namespace, base name) of an OpOverload: ``aten.relu_.default`` -> (aten, relu)."""
    ns = getattr(func, "namespace", "aten")
    name = func._schema.name.split("::")[-1] if hasattr(func, "_schema") else str(func)
    if name.endswith("_") and not name.endswith("__"):
        name = name[:-1]  # in-place variant computes the same thing
    return ns, name


class OpRecorder(TorchDispatchMode):
    """Collects compute ops and custom-op calls while active (``with OpRecorder() as rec:``)."""

    def __init__(self) -> None:
        super().__init__()
        self.compute: set[str] = set()
        self.custom: set[str] = set()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        ns, name = op_name(func)
        if ns not in TORCH_NAMESPACES:
            self.custom.add(f"{ns}::{name}")
        elif name not in NON_COMPUTE:
            self.compute.add(name)
        return func(*args, **(kwargs or {}))


def coverage(reference: set[str], candidate: set[str]) -> tuple[bool, list[str]]:
    """(torch computes everything the reference does, sorted candidate compute ops)."""
    return bool(reference) and reference <= candidate, sorted(candidate)
