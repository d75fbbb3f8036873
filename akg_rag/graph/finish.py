"""The ``finish`` node: the run's outcome, and the write-back of its verified kernel.

The best verified kernel (if any) is added to the ``kernels`` collection with its task analysis,
sketch and measured numbers, ``origin=run``. Record ids derive from target, operator, task and code,
so a second identical run adds nothing; the next retrieval for the task finds the kernel. A *partial*
candidate (the verifier's ``partial``: torch still computes part of the work) is reported but never
written back, so the knowledge base holds only full kernels.
"""

from __future__ import annotations

import platform
from typing import Any

from langgraph.runtime import Runtime

from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.graph.services import get_embedder, get_store
from akg_rag.graph.state import State


def _arch(backend: str) -> str:
    """The architecture a kernel was verified on: the CPU's machine name or the GPU's ``sm_XY``."""
    if backend == "cpu":
        return platform.machine() or "cpu"
    import torch

    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        return f"sm_{major}{minor}"
    return backend


def kernel_record(state: State, run_id: str) -> Any:
    """The ``KernelRecord`` of the run's best kernel (origin=run), with its measured numbers.

    The description states the speedup with its interval and, plainly, when the kernel is slower
    than eager: retrieval shows it, and the graph ranks such kernels below faster ones.
    """
    from akg_rag.analysis import TaskAnalysis
    from akg_rag.records import KernelRecord, KernelSidecar, Measured
    from akg_rag.search.tunables import tunable_values

    best = state["best"]
    analysis = TaskAnalysis.from_dict(state["analysis"])
    timings = best.get("timings") or {}
    meaningful = timings.get("meaningful", True) is not False
    measured = Measured(**{k: timings.get(k) for k in ("candidate_ms", "eager_ms", "compile_ms",
                                                       "speedup_eager", "speedup_compile")
                           if meaningful and timings.get(k)},
                        device=timings.get("device") or None, baseline=timings.get("baseline") or None,
                        dtype=analysis.dtype, roofline_fraction=timings.get("roofline_fraction") or None)
    how = f"verified by a generation run ({best.get('origin') or 'llm'})"
    if meaningful and timings.get("speedup_eager") is not None:
        how += "; " + "; ".join(f for f in _figures(timings) if " vs " in f)
    sidecar = KernelSidecar(
        dsl=state["dsl"], backend=state["backend"], arch=_arch(state["backend"]),
        description=f"{analysis.op_name} kernel {how}",
        tunables=tunable_values(best["code"]),
        sketch=best.get("sketch", ""), measured=measured, origin="run")
    return KernelRecord.build(sidecar, best["code"], analysis, source=f"run:{run_id}" if run_id else "run")


def _figures(t: dict[str, Any]) -> list[str]:
    """Time and speedups with their intervals, in words: what the final line and the record say."""
    from akg_rag.search.fitness import speedup_words

    figures = []
    if t.get("candidate_ms") is not None:
        iqr = f" (IQR {t['candidate_iqr_ms']:.2g})" if t.get("candidate_iqr_ms") is not None else ""
        figures.append(f"{t['candidate_ms']:.4g} ms{iqr}")
    if t.get("meaningful") is False:
        return figures + ["timings not meaningful on this backend"]
    if t.get("speedup_eager") is not None:
        figures.append(speedup_words(t["speedup_eager"], t.get("speedup_eager_low"), t.get("speedup_eager_high")))
    if t.get("speedup_compile") is not None:
        figures.append(speedup_words(t["speedup_compile"], t.get("speedup_compile_low"),
                                     t.get("speedup_compile_high"), "torch.compile"))
    if t.get("device") and figures:
        # a CPU speedup holds for the thread count it was timed with (fewer beside other work)
        figures.append(f"timed on {t['device']}")
    return figures


def slower_than(t: dict[str, Any]) -> list[str]:
    """Baselines the kernel is measurably slower than ("PyTorch eager", "torch.compile")."""
    if t.get("meaningful") is False:
        return []
    out = []
    for key, name in (("speedup_eager", "PyTorch eager"), ("speedup_compile", "torch.compile")):
        s, high = t.get(key), t.get(f"{key}_high")
        if s is not None and (high if high is not None else s) < 1.0:
            out.append(name)
    return out


def outcome(state: State) -> tuple[str, str]:
    """Final status and one-line message from the best kernel and the conductor's last reason.

    A kernel slower than eager or torch.compile is still ``verified`` (it is correct), but the
    message says so first, in words, rather than leaving a ratio below 1 to be noticed.
    """
    reason = state.get("message", "")
    best = state.get("best")
    if best:
        t = best.get("timings") or {}
        figures = _figures(t)
        shown = f" ({', '.join(figures)})" if figures else ""
        slower = slower_than(t)
        verdict = f", but SLOWER than {' and '.join(slower)}" if slower else ""
        partial = (f" (partial: torch still computes {', '.join(best.get('partial_ops') or [])})"
                   if best.get("partial") else "")
        return "verified", (f"verified{' partial' if partial else ''} kernel from attempt "
                            f"{best.get('iteration')}{verdict}{shown}{partial}; {reason}")
    if state.get("coder_outcome") == "no_match":
        return "no_match", reason
    return "failed", f"no verified kernel: {reason}"


@timed
def finish(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Set the outcome and write the verified kernel back to the knowledge base (once)."""
    from akg_rag.records import add_kernel

    ctx = runtime.context
    status, message = outcome(state)
    written: list[str] = list(state.get("written_back", []))
    detail = message
    best = state.get("best") or {}
    if status == "verified" and ctx.write_back and best.get("partial"):
        # a partial candidate (torch computes part of the work) is never stored as a verified kernel
        detail += (" [not written back: partial candidate, torch still computes "
                   f"{', '.join(best.get('partial_ops') or []) or 'part of the work'}]")
    elif status == "verified" and ctx.write_back:
        record = kernel_record(state, ctx.run_id)
        added = add_kernel(get_store(ctx), get_embedder(ctx), record)
        written.append(record.id)
        detail += f" [{'written back' if added else 'already in the knowledge base'}: {record.id}]"
    return {"status": status, "message": message, "written_back": written,
            "events": [event("finish", status, detail)]}
