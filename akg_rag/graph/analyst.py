"""The ``analyst`` node: reads the best kernel's measurements and steers the next optimisation pass.

Deterministic rules come first and need no model: where the kernel sits against the roofline
(arithmetic intensity from the task analysis, achieved GB/s and TFLOP/s from the verifier), how it
compares with eager and ``torch.compile``, what the profiler's kernel list says when the verifier
attached one (GPU), with ``offline_profile`` what the compiler made of a Triton kernel for sm_90
(registers, spills, resident programs, vectorised loads; compiled in the sandbox, no GPU), and
which tunables the code exposes. With a chat model, those findings go into
its prompt and its recommendations replace the rules' (the rules remain the fallback).
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from akg_rag.graph import prompts
from akg_rag.graph.context import Context
from akg_rag.graph.events import event, timed
from akg_rag.search.tunables import find_tunables
from akg_rag.graph.services import get_chat_model
from akg_rag.graph.state import Feedback, State

# Arithmetic intensity (FLOP per byte of minimum traffic) below which a kernel is memory-bound. GPU
# ridge points lie near 10-20 FLOP/B for fp32 CUDA cores and far higher for tensor cores; CPUs with
# AVX2/AVX-512 near 5-15. 10 separates streaming ops (<1) from GEMM-like ones (>>10) on all of them.
MEMORY_BOUND_INTENSITY = 10.0


def _intensity(analysis: dict[str, Any]) -> float:
    """FLOPs over minimum bytes of traffic from the task analysis (0.0 when unknown)."""
    min_bytes = analysis.get("min_bytes") or 0
    return (analysis.get("flops") or 0) / min_bytes if min_bytes else 0.0


def findings(analysis: dict[str, Any], result: dict[str, Any] | None, code: str, dsl: str) -> list[str]:
    """Rule-based findings and recommendations for a verified kernel, most important first."""
    out: list[str] = []
    timings = (result or {}).get("timings") or {}
    flops, min_bytes = analysis.get("flops") or 0, analysis.get("min_bytes") or 0
    intensity = _intensity(analysis)
    memory_bound = intensity < MEMORY_BOUND_INTENSITY
    out.append(f"{'memory' if memory_bound else 'compute'}-bound: arithmetic intensity {intensity:.2f} FLOP/B "
               f"({flops} FLOPs over {min_bytes} bytes minimum traffic)")
    if timings.get("meaningful") is False:
        out.append("timings come from an interpreter and do not rank candidates; measure on the target")
    frac = timings.get("roofline_fraction")
    if timings.get("achieved_gbps") is not None:
        out.append(f"achieved {timings['achieved_gbps']:.3g} GB/s"
                   + (f", {timings['achieved_tflops']:.3g} TFLOP/s" if timings.get("achieved_tflops") else "")
                   + (f" = {frac:.0%} of the roofline" if frac is not None else ""))
    if frac is not None and frac < 0.5:
        if memory_bound:
            out.append("far from the bandwidth roof: read each input once (fuse passes, e.g. an online "
                       "max/sum for softmax), use contiguous vectorised loads, and give each program/thread "
                       "a larger contiguous block")
        else:
            out.append("far from the compute roof: tile for data reuse (blocked loops in cache/shared "
                       "memory), use the matrix units (tl.dot / SIMD FMA), and pipeline loads (more stages)")
    speedup = timings.get("speedup_eager")
    if speedup is not None and speedup < 1.0:
        out.append(f"slower than eager ({speedup:.2f}x): check launch/parallel overhead at this size and "
                   "whether the work per thread is too small")
    if timings.get("speedup_compile") is not None and speedup is not None and timings["speedup_compile"] < 1.0 <= speedup:
        out.append(f"beats eager but not torch.compile ({timings['speedup_compile']:.2f}x): fuse what "
                   "compile fuses and avoid intermediate tensors")
    out.extend(_profile_findings((result or {}).get("profile")))
    out.extend(host_findings((result or {}).get("profile"), timings))
    if memory_bound:
        out.extend(stage_switches(code))
        out.extend(pipe_switches(code))
    tunables = find_tunables(code)
    if tunables:
        names = ", ".join(f"{t.name}={t.value}" for t in tunables[:6])
        out.append(f"tunables to sweep: {names} (double/halve one at a time)")
    elif dsl == "cpp":
        out.append("no named tunables: expose the tile/chunk size as a constexpr so it can be tuned")
    if dsl == "cpp":
        out.append("C++/CPU: parallelise the outer loop with OpenMP (schedule(static)), keep inner loops "
                   "contiguous with #pragma omp simd, and avoid per-element bounds checks in the hot loop")
    elif dsl == "triton":
        out.append("Triton: try num_warps 4/8 with BLOCK sizes of 1024-4096 for streaming ops; for "
                   "reductions keep a whole row in one program when it fits")
    return out


def _kernel_us(k: dict[str, Any]) -> float:
    """A profiler row's time a call, in microseconds."""
    return float(k.get("time_us") or k.get("cuda_time_us") or 0.0)


def _profile_findings(profile: Any) -> list[str]:
    """Findings from a profiler kernel list: [{name, time_us or cuda_time_us, count}] (GPU runs)."""
    if not profile or not isinstance(profile, list):
        return []
    kernels = sorted((k for k in profile if isinstance(k, dict)), key=_kernel_us, reverse=True)
    total = sum(_kernel_us(k) for k in kernels) or 1.0
    top = ", ".join(f"{k.get('name', '?')[:40]} {_kernel_us(k) / total:.0%}" for k in kernels[:3])
    out = [f"profiler: {len(kernels)} kernel(s) per call; top: {top}"]
    if len(kernels) > 1:
        out.append("several kernels per call: fuse them so intermediates stay in registers/shared memory")
    return out


HOST_GAP_SHARE = 0.25   # the share of a timed call its kernels do not cover that is worth a finding
HOST_GAP_MIN_US = 10.0  # ... and at least this long


def host_findings(profile: Any, timings: dict[str, Any]) -> list[str]:
    """Whether a timed GPU call is longer than its kernels: the host path (argument checks,
    allocations, Python launchers) or idle gaps between launches show inside the timing. The
    profile runs calls back to back with warm caches, so part of a gap can be L2 rather than host."""
    if not profile or not isinstance(profile, list) or not timings.get("candidate_ms"):
        return []
    if timings.get("method") != "cuda_event":   # a CPU call is all host; a graph replay has none
        return []
    device_us = sum(_kernel_us(k) for k in profile if isinstance(k, dict))
    call_us = 1e3 * float(timings["candidate_ms"])
    gap = call_us - device_us
    if device_us <= 0 or gap < HOST_GAP_MIN_US or gap < HOST_GAP_SHARE * call_us:
        return []
    launches = sum(float(k.get("count") or 1) for k in profile if isinstance(k, dict))
    return [f"host-bound call: {call_us:.4g} us timed, its {launches:g} kernel launch(es) {device_us:.4g} us on "
            f"the device ({gap / call_us:.0%} of the call is the host path or gaps between launches): "
            "fewer launches (fuse the sketches), a lighter wrapper (fewer checks, views and allocations "
            "before the first launch), the largest kernel launched first, or a CUDA graph for a "
            "fixed-shape call; a faster kernel will not show until then"]


def offline_findings(reports: list[dict[str, Any]], memory_bound: bool) -> list[str]:
    """Findings from the best kernel compiled for sm_90 offline (:func:`akg_rag.lower.offline.inspect_isolated`):
    per launch its registers, spills, resident programs and vectorised loads, and what they imply."""
    out: list[str] = []
    for r in reports[:4]:
        name = r.get("kernel", "?")
        if r.get("error"):
            out.append(f"{name} does not compile for sm_90: {r['error'][:200]}")
            continue
        warps = r.get("programs_per_sm", 0) * r.get("num_warps", 0)
        out.append(f"{name} on sm_90 (compiled offline): {r.get('registers', 0)} registers a thread, "
                   f"{r.get('spill_bytes', 0)} bytes spilled, {r.get('programs_per_sm', 0)} program(s) a "
                   f"multiprocessor ({r.get('occupancy_limit') or 'unknown'}, {warps} of 64 warps)"
                   + (f", {r['waves']:g} waves" if r.get("waves") else "")
                   + f"; {r.get('vector_loads', 0)} of {r.get('loads', 0)} global loads vectorised"
                   + (f" (machine code: {r['sass_loads']} loads, {r.get('sass_vector_loads', 0)} of them vectors)"
                      if r.get("sass_loads") else ""))
        if r.get("spill_bytes"):
            out.append(f"{name} spills registers: a smaller tile, fewer values a thread or more warps")
        if r.get("occupancy_limit") in ("registers", "shared memory") and 0 < warps <= 32:
            what = "registers a thread" if r["occupancy_limit"] == "registers" else "shared memory (pipeline stages, tile)"
            out.append(f"{name}: only {warps} warps resident, limited by {what}: use less of it so more "
                       "programs overlap their memory accesses")
        if 0 < (r.get("waves") or 0) < 0.5:
            out.append(f"{name}'s grid fills {r['waves']:.1%} of the GPU once: smaller tiles or a split "
                       "give the idle multiprocessors work")
        sass, vec = r.get("sass_loads", 0), r.get("sass_vector_loads", 0)
        if memory_bound and vec and sass >= 16 and 2 * vec < sass:
            out.append(f"{name}'s machine code issues {sass} global loads a thread, {sass - vec} of them scalar: "
                       "accesses at offsets that are not multiples of 4 elements are split into pieces; "
                       "fewer, aligned, wider loads relieve the load/store unit")
        if memory_bound and r.get("loads") and not r.get("vector_loads"):
            out.append(f"{name}: no global load is vectorised: make the last dim contiguous and its "
                       "offsets provably 16-byte aligned (multiples of 4 f32)")
    return out


def _offline(state: State, code: str) -> list[str]:
    """:func:`offline_findings` of ``code`` on the state's task; one line saying why when it fails."""
    from pathlib import Path

    from akg_rag.lower.offline import inspect_isolated

    try:
        reports = inspect_isolated(Path(state["task_path"]).read_text(encoding="utf-8"), code)
    except Exception as e:  # noqa: BLE001 - a finding, never a failed pass
        return [f"offline compile for sm_90 unavailable: {type(e).__name__}: {str(e)[:200]}"]
    out = offline_findings(reports, memory_bound=_intensity(state.get("analysis", {})) < MEMORY_BOUND_INTENSITY)
    return out + span_switches(code, out)


def span_switches(code: str, findings: list[str]) -> list[str]:
    """Where the findings say taps are split into scalar pieces and ``code`` (a lowered candidate)
    has span forms it does not run (``{NAME}_SPAN_MODE = 1``), the switch that runs them."""
    if not any("of them scalar" in f for f in findings):
        return []
    names = re.findall(r"^(\w+_SPAN_MODE) = 1\b", code, flags=re.M)
    return [f"{n} = 2: its unrolled tap loops load each group of four lanes' span once as aligned vectors "
            "and form the taps in registers (akg_rag.lower.triton_span)" for n in names]


def stage_switches(code: str) -> list[str]:
    """Where ``code`` (a lowered candidate) has streaming loops it runs as written
    (``{NAME}_LOOP_STAGES = 1``: one load a thread in flight, waited for before the next is
    issued), the switch that software-pipelines their loads."""
    names = re.findall(r"^(\w+_LOOP_STAGES) = 1\b", code, flags=re.M)
    return [f"{n} = 3 to try: its streaming loops keep one load a thread in flight; pipelined, each "
            "loop's loads run two iterations ahead through shared memory (akg_rag.lower.triton_loops.staged; "
            "on an H100 a batch norm gained 4%, a layer norm and a group norm lost: keep it only if faster)"
            for n in names]


def pipe_switches(code: str) -> list[str]:
    """Where ``code`` (a lowered candidate) runs a cooperative launch as written
    (``{NAME}_PIPE = 0``: a program waits at its row's barrier with no load in flight), the switch
    that puts the next grid point's loads before the wait."""
    names = re.findall(r"^(\w+_PIPE) = 0\b", code, flags=re.M)
    return [f"{n} = 3 to try: its cooperative launch waits at each row's barrier with no load in flight; "
            "pipelined, three programs a multiprocessor each load and arrive for their next chunk before "
            "waiting on the one they hold (akg_rag.lower.triton_pipe; on an H100 L1/L2 norms of 65535-element "
            "rows gained 8-10%, softmax 3%, instance norm nothing: keep it only if faster)" for n in names]


def _bullets(text: str) -> list[str]:
    lines = [re.sub(r"^\s*(?:[-*]|\d+[.)])\s+", "", ln).strip() for ln in text.splitlines()
             if re.match(r"^\s*(?:[-*]|\d+[.)])\s+", ln)]
    return [ln for ln in lines if ln]


@timed
def analyst(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write recommendations for the next optimisation pass and start it."""
    ctx = runtime.context
    best = state.get("best") or {}
    code = best.get("code", "")
    rules = findings(state.get("analysis", {}), {"timings": best.get("timings"),
                                                 "profile": (state.get("last_result") or {}).get("profile")},
                     code, state["dsl"])
    if ctx.offline_profile and state["dsl"] == "triton" and state["backend"] == "cuda" and code:
        rules[1:1] = _offline(state, code)   # after the bound line: the compiler's facts before the generic advice
    recs, source = rules, "rules"
    model = get_chat_model(ctx)
    if model is not None:
        timings = best.get("timings") or {}
        prompt = prompts.ANALYST.format(
            dsl=state["dsl"], backend=state["backend"], code=code.strip(),
            measurements="\n".join(f"- {k}: {v}" for k, v in timings.items()) or "(none)",
            findings="\n".join(f"- {f}" for f in rules))
        answer = model.invoke([SystemMessage(prompts.SYSTEM), HumanMessage(prompt)])
        llm_recs = _bullets(str(answer.content))
        if llm_recs:
            recs, source = llm_recs, "llm"
    opt_pass = state.get("opt_pass", 0) + 1
    text = (f"Optimisation pass {opt_pass}: make the current best kernel faster while keeping it "
            "correct, following the analyst recommendations.")
    return {
        "recommendations": recs,
        "opt_pass": opt_pass,
        "feedback": Feedback(to="coder", kind="optimize", text=text),
        "events": [event("analyst", "ok", f"pass {opt_pass} ({source}): {recs[0] if recs else ''}")],
    }
