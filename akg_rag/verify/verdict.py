"""The verdict dict the judge seals: its common fields, the timing figures, violation texts.

Pure functions of what the judge found (:mod:`akg_rag.verify.judge`); nothing here talks to the
candidate process. The parent (:mod:`akg_rag.verify.runner`) turns the unsealed dict into a
:class:`akg_rag.verify.result.VerifyResult`.
"""

from __future__ import annotations

import platform
from typing import Any

import torch

from akg_rag.verify import paired
from akg_rag.verify.guards import GUARDS, dedupe, violation
from akg_rag.verify.roofline import roofline
from akg_rag.verify.timing import Measurement


def assemble(status: str, feedback: str, report: dict[str, Any], notes: list[str], **extra: Any) -> dict[str, Any]:
    """The verdict's common fields (status, feedback, violations, builds, notes) plus ``extra``.

    ``report`` is the candidate process's report (its builds and notes are kept, bounded: the
    candidate wrote them); ``notes`` are the judge's own.
    """
    verdict = {"status": status, "feedback": feedback, "guard_violations": extra.pop("violations", []),
               "builds": [b for b in (report.get("builds") or []) if isinstance(b, dict)][:20],
               "notes": notes + [str(n)[:300] for n in (report.get("notes") or [])][:20]}
    verdict.update(extra)
    return verdict


def from_failure(rep: dict[str, Any], own: list[dict[str, str]], notes: list[str]) -> dict[str, Any]:
    """The verdict on a failure report from the candidate process: its status can only be a failure.

    ``own`` are the violations the judge found itself before the report came.
    """
    if rep.get("verifier_error"):
        return {"verifier_error": str(rep["verifier_error"])[:2000]}
    found = dedupe(own + candidate_violations(rep.get("violations")))
    status = rep.get("status")
    if found or status == "guard_violation":
        return assemble("guard_violation", violation_text(found), rep, notes, violations=found)
    if status not in ("compile_error", "runtime_error"):
        status = "runtime_error"
    return assemble(status, str(rep.get("feedback") or "")[:6000], rep, notes)


def candidate_violations(raw: Any) -> list[dict[str, str]]:
    """Violation records from the candidate's report, keeping only known guard names."""
    out = []
    for v in raw if isinstance(raw, list) else []:
        if isinstance(v, dict) and v.get("name") in GUARDS:
            out.append(violation(v["name"], str(v.get("detail", ""))[:500]))
    return out


def violation_text(found: list[dict[str, str]]) -> str:
    """Feedback listing each violated guard with what happened and what the guard means."""
    lines = ["guard violations (the protocol forbids these; see the guard's meaning):"]
    for v in found:
        lines.append(f"- {v['name']}: {v['detail']}  [{GUARDS.get(v['name'], '')}]")
    return "\n".join(lines)


def timings(*, cand: Measurement | None, eager: Measurement | None, compiled: Measurement | None,
            pair: paired.Paired | None, eager_isolated: Measurement | None, device: torch.device,
            interpreted: bool, flops: int | None, min_bytes: int | None, dtype: str,
            compile_status: str) -> dict[str, Any] | None:
    """The ``timings`` field of a correct verdict: medians, speedups, roofline figures, intervals."""
    if eager is None and cand is None:
        return None
    cand_ms = cand.median_ms if cand else None
    eager_ms = eager.median_ms if eager else None
    comp_ms = compiled.median_ms if compiled else None
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
    else:
        n = torch.get_num_threads()
        name = f"cpu ({platform.machine()}, {n} thread{'' if n == 1 else 's'})"
    gbps = tflops = frac = None
    if cand_ms and not interpreted:
        gbps, tflops, frac = roofline(cand_ms / 1e3, flops, min_bytes, dtype, name)
    baseline = f"torch {torch.__version__} eager" + ("; torch.compile (inductor)" if comp_ms else "")
    out = {
        "candidate_ms": cand_ms, "eager_ms": eager_ms, "compile_ms": comp_ms,
        "speedup_eager": eager_ms / cand_ms if cand_ms and eager_ms else None,
        "speedup_compile": comp_ms / cand_ms if cand_ms and comp_ms else None,
        "meaningful": not interpreted, "achieved_gbps": gbps, "achieved_tflops": tflops,
        "roofline_fraction": frac, "device": name, "baseline": baseline,
        "compile_status": compile_status,
        "runs": cand.runs if cand else 0, "warmup": cand.warmup if cand else 0,
    }
    out.update(paired.timing_fields(pair, eager_isolated, compiled))
    return out
