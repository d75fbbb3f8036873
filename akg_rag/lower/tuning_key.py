"""What a tuned configuration is filed under: op signature, shape bucket and device.

A kernel's best tunables depend on what it computes, on roughly how large the problem is and on
the machine, so the tuning store keys a configuration by three parts:

* **signature** -- sha256[:16] of the DSL, the backend and the kernel's sketch in canonical form:
  the kernel's name dropped, tunable values blanked (their defaults follow the shapes), and every
  lower-case name that is not sketch vocabulary (tensors and locals, which come from the task's
  variable names) renamed in order of first appearance. Two tasks whose regions compute the same
  thing in the same emitted form share a signature; a different form (a persistent reduction
  against a looped one, a split GEMM) or a different literal (a kernel size) does not.
* **bucket** -- every size symbol of the sketch bound at the task's shapes and rounded *up* to a
  power of two (``D0=4,D1=512``): the padded tile extents a power-of-two backend compiles for, so
  tasks in one bucket run the same tile shapes.
* **device** -- ``torch.cuda.get_device_name`` on CUDA, the CPU model on the CPU.
"""

from __future__ import annotations

import functools
import hashlib
import platform
import re
from dataclasses import dataclass
from typing import Any, Mapping

from akg_rag.lower.emit.common import RESERVED, next_pow2
from akg_rag.sketch.nodes import Sketch

# A quoted string (hint words: vocabulary, left alone) or a lower-case identifier.
_TOKEN = re.compile(r'"[^"]*"|\b[a-z_][A-Za-z0-9_]*\b')
_HEAD = re.compile(r"^sketch\s+\w+\s*\{")
_PARAMS = re.compile(r"^(\s*params:)(.*)$", re.M)


@dataclass(frozen=True)
class TuningKey:
    """Where one kernel's tuned configuration is filed (see the module docstring)."""

    signature: str      # sha256[:16] of dsl, backend and the canonical sketch
    bucket: str         # "D0=4,D1=512": sizes rounded up to powers of two
    device: str         # "NVIDIA H200", "Intel(R) Xeon(R) ..."

    def text(self) -> str:
        """The key as one string (the store's dict key)."""
        return f"{self.signature}|{self.bucket}|{self.device}"


def canonical_sketch(text: str, tunables: set[str] | frozenset[str]) -> str:
    """The sketch text with its name dropped, tunable values blanked and task-specific lower-case
    names renamed ``v0, v1, ...`` in order of first appearance (see the module docstring)."""
    out = _HEAD.sub("sketch _ {", text.strip(), count=1)

    def blank(m: re.Match[str]) -> str:
        parts = []
        for item in m.group(2).split(","):
            name, _, value = item.partition("=")
            parts.append(f"{name.strip()} = ?" if name.strip() in tunables else f"{name.strip()} ={value}")
        return m.group(1) + " " + ", ".join(parts)

    out = _PARAMS.sub(blank, out, count=1)
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.startswith('"') or word in RESERVED:
            return word
        return names.setdefault(word, f"v{len(names)}")

    return "\n".join(line.rstrip() for line in _TOKEN.sub(rename, out).splitlines() if line.strip())


def signature(sketch_text: str, tunables: set[str] | frozenset[str], dsl: str, backend: str) -> str:
    """sha256[:16] of the target and the canonical sketch: the op-signature part of a key."""
    canon = canonical_sketch(sketch_text, tunables)
    return hashlib.sha256(f"{dsl}/{backend}\n{canon}".encode()).hexdigest()[:16]


def shape_bucket(sizes: Mapping[str, int]) -> str:
    """``D0=4,D1=512``: each size rounded up to a power of two, in the given order."""
    return ",".join(f"{k}={next_pow2(int(v))}" for k, v in sizes.items())


def symbol_sizes(sketch: Sketch, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, int]:
    """Each size symbol of ``sketch`` bound from ``shapes`` (tensor name -> shape at the task's
    sizes), as the host function binds it: from the first whole dimension that is that symbol. A
    symbol whose tensor is missing from ``shapes`` is left out."""
    from akg_rag.lower.typed import analyze

    out: dict[str, int] = {}
    for sym, (tensor, dim) in analyze(sketch).bindings.items():
        shape = shapes.get(tensor)
        if shape is not None and dim < len(shape):
            out[sym] = int(shape[dim])
    order = [s.name for s in sketch.symbols]
    return {s: out[s] for s in order if s in out}


def region_sizes(sketch: Sketch, region: Any) -> dict[str, int]:
    """:func:`symbol_sizes` of a region's kernel (its values' captured shapes)."""
    from akg_rag.lower.execute import region_values

    shapes = {v.name: tuple(v.shape) or (1,) for v in region_values(region)}  # 0-d is declared [1]
    return symbol_sizes(sketch, shapes)


@functools.lru_cache(maxsize=8)
def device_name(backend: str, device: str | None = None) -> str:
    """The device a configuration is measured on: the GPU's name for ``cuda`` (``device`` such as
    ``cuda:1`` picks one), the CPU model otherwise."""
    if backend == "cuda":
        import torch

        if not torch.cuda.is_available():
            return "cuda (no device visible)"
        return torch.cuda.get_device_name(torch.device(device) if device else None)
    return _cpu_model()


def _cpu_model() -> str:
    """``model name`` from /proc/cpuinfo, else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def kernel_key(sketch_text: str, tunable_params: set[str] | frozenset[str], sizes: Mapping[str, int],
               dsl: str, backend: str, device: str) -> TuningKey:
    """The full key of one kernel."""
    return TuningKey(signature(sketch_text, tunable_params, dsl, backend), shape_bucket(sizes), device)
