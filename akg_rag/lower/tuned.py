"""Stored tunings at lowering time: a kernel whose key is in the tuning store starts from the
stored tunables instead of the emitter's defaults.

:func:`akg_rag.lower.assemble.lower_task` takes a :class:`StoredTuning` (``tuning=``) and calls
:meth:`StoredTuning.apply` on every kernel it generates. The stored values replace the literals of
the kernel's module-level tunables (``K0_KBLOCK = 4`` -> ``8``; the search's own
:func:`~akg_rag.search.tunables.rewrite`), so the code is exactly what a tune measured. The
kernel's report records where its configuration came from (``tuning``: ``source`` is ``store`` or
``default``, with the key, and for a store hit the measured time, date and task).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from akg_rag.errors import ConfigError
from akg_rag.lower.source import KernelSource
from akg_rag.lower.tuning_key import TuningKey, device_name, kernel_key
from akg_rag.lower.tuning_store import TuningStore
from akg_rag.sketch.nodes import Sketch


def sketch_tunables(sketch: Sketch) -> set[str]:
    """The sketch's tunable parameters (UPPER_CASE integer params), as the backends find them."""
    from akg_rag.lower.typed import is_tunable

    return {p.name for p in sketch.params if is_tunable(p.name, p.value)}


def key_of(sketch_text: str, sketch: Sketch, sizes: Mapping[str, int], dsl: str, backend: str,
           device: str) -> TuningKey:
    """The tuning key of one generated kernel (the tuner files under the same key)."""
    return kernel_key(sketch_text, sketch_tunables(sketch), sizes, dsl, backend, device)


def params_of(kernel: str, tunables: Mapping[str, int]) -> dict[str, int]:
    """``{"K0_KBLOCK": 8}`` of kernel ``k0`` -> ``{"KBLOCK": 8}`` (what the store keeps)."""
    prefix = kernel.upper() + "_"
    return {n[len(prefix):]: v for n, v in tunables.items() if n.startswith(prefix)}


@dataclass
class StoredTuning:
    """The store and the device a lowering reads tuned configurations for."""

    store: TuningStore
    device: str

    @classmethod
    def for_backend(cls, backend: str, store: TuningStore | None = None, device: str | None = None) -> "StoredTuning":
        """The default store (or ``store``) and this machine's device for ``backend``."""
        return cls(store if store is not None else TuningStore(), device_name(backend, device))

    def apply(self, name: str, sketch_text: str, sketch: Sketch, src: KernelSource,
              sizes: Mapping[str, int], dsl: str, backend: str) -> tuple[KernelSource, dict[str, Any]]:
        """``src`` with the stored tunables of its key, and the record of where they came from.
        An unreadable store leaves the defaults (the record says why) rather than failing a lowering."""
        key = key_of(sketch_text, sketch, sizes, dsl, backend, self.device)
        info: dict[str, Any] = {"source": "default", "key": key.text()}
        try:
            entry = self.store.get(key)
        except ConfigError as e:
            info["note"] = str(e)
            return src, info
        if entry is None:
            return src, info
        prefix = name.upper() + "_"
        changes = {prefix + p: int(v) for p, v in entry.tunables.items() if prefix + p in src.tunables}
        if changes:
            from akg_rag.search.tunables import rewrite

            src = replace(src, code=rewrite(src.code, changes), tunables={**src.tunables, **changes})
        info.update(source="store", tunables=dict(entry.tunables), ms=entry.ms, date=entry.date,
                    task=entry.task)
        return src, info


def describe(info: Mapping[str, Any]) -> str:
    """One line for a kernel's tuning record: ``tuned config from store (KBLOCK=8; 0.12 ms, ...)``."""
    if info.get("source") != "store":
        return "default tunables" + (f" ({info['note']})" if info.get("note") else "")
    values = ", ".join(f"{k}={v}" for k, v in (info.get("tunables") or {}).items())
    ms = f"; {info['ms']:.4g} ms" if isinstance(info.get("ms"), (int, float)) else ""
    return f"tuned config from store ({values}{ms}, tuned {info.get('date', '?')} on {info.get('task') or '?'})"
