"""Region -> Unified Sketch emitters, one module per region kind (docs/lowering.md, step 3).

``emit_sketch(region, name)`` returns sketch text that ``check_sketch`` accepts and that computes
exactly what the region computes, under the kernel semantics of docs/lowering.md.
"""

from __future__ import annotations

from akg_rag.lower.region import Region


def emit_sketch(region: Region, name: str, barriers: bool = False, tensor_cores: bool = False,
                stream: bool = False) -> str:
    """Sketch text of one region; ``name`` names the sketch (the kernel); ``barriers``: the target
    runs ``barrier`` statements (Triton on a GPU), so a reduction may take its cooperative form;
    ``tensor_cores``: it multiplies tiles on tensor cores (Triton on a GPU), so a convolution may
    pad its channels to whole blocks for them; ``stream`` (with ``barriers``): a reduction the
    split form would take may take the streaming cooperative form instead (emit/stream.py; off
    by default: timed on an H100 it ran no faster than the split form)."""
    kind = getattr(region, "kind", None)
    if kind == "pointwise":
        from akg_rag.lower.emit.pointwise import emit_pointwise
        return emit_pointwise(region, name)  # type: ignore[arg-type]
    if kind == "reduction":
        from akg_rag.lower.emit.reduction import emit_reduction
        return emit_reduction(region, name, barriers, stream)  # type: ignore[arg-type]
    if kind == "gemm":
        from akg_rag.lower.emit.gemm import emit_gemm
        return emit_gemm(region, name)  # type: ignore[arg-type]
    if kind == "conv":
        from akg_rag.lower.emit.conv import emit_conv
        return emit_conv(region, name, tensor_cores)  # type: ignore[arg-type]
    if kind == "pool":
        from akg_rag.lower.emit.pool import emit_pool
        return emit_pool(region, name)  # type: ignore[arg-type]
    if kind == "scan":
        from akg_rag.lower.emit.scan import emit_scan
        return emit_scan(region, name)  # type: ignore[arg-type]
    raise ValueError(f"no emitter for region kind {kind!r}; known: pointwise, reduction, gemm, conv, pool, scan")


__all__ = ["emit_sketch"]
