"""Figures of a benchmark run, shared by kernelbench.py and lower_suite.py.

A *row* is one verified candidate as a JSON-ready dict (:func:`result_row` of a ``VerifyResult``,
plus the caller's keys such as ``problem``). The figures of a group of rows are: how many are
correct, how many of those are partial (torch still computes part of the work), fast_1 (the
fraction correct and faster than eager), how many correct rows are library candidates (``kind``
``library``: vendor GEMM/conv cores, generated tails; always partial), and the geometric means of the speedups over eager and
over ``torch.compile``, where a failed or untimed candidate counts as 1.0x (the fallback to the
reference costs nothing and gains nothing).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

HEADER = ["problem", "kind", "status", "partial", "x eager", "x compile", "cand ms", "% roofline", "GB/s", "note"]

# H200 datasheet peaks the verifier's roofline uses (akg_rag.verify.roofline): HBM bytes/s and
# fp32 FLOP/s without tensor cores; a row whose bytes term of the floor is the larger is memory-bound
PEAK_BYTES_PER_S = 4.8e12
PEAK_FP32_FLOPS = 67e12


# timing fields a row keeps when the verifier filled them: the clock, the intervals, CUDA-graph replay
TIMING_EXTRAS = ("method", "queued", "blocks", "speedup_eager_low", "speedup_eager_high",
                 "speedup_compile_low", "speedup_compile_high", "compile_method", "graph_method",
                 "graph_candidate_ms", "graph_eager_ms", "graph_speedup_eager", "achieved_gbps",
                 "achieved_tflops", "first_call_ms")


def result_row(r: Any) -> dict:
    """The JSON-ready fields of a ``VerifyResult`` that the figures and tables read."""
    t = r.timings
    row = {"status": r.status, "partial": bool(r.partial), "partial_ops": list(r.partial_ops or []),
           "guards": r.violation_names(), "review": bool(r.review),
           "feedback": (r.feedback or "")[:1500], "isolation": getattr(r, "isolation", "")}
    if t is not None and r.ok:
        row.update(candidate_ms=t.candidate_ms, eager_ms=t.eager_ms, compile_ms=t.compile_ms,
                   speedup_eager=t.speedup_eager, speedup_compile=t.speedup_compile,
                   roofline=t.roofline_fraction, device=t.device)
        for extra in TIMING_EXTRAS:
            value = getattr(t, extra, None)
            if value not in (None, ""):
                row[extra] = value
    return row


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the positive values; None when there are none."""
    vals = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None


def speedups(row: dict) -> tuple[float | None, float | None]:
    """(over eager, over torch.compile) of a correct row; (None, None) otherwise."""
    if row.get("status") != "correct":
        return None, None
    return row.get("speedup_eager"), row.get("speedup_compile")


def score(rows: list[dict]) -> dict:
    """Figures of a group of rows (failures and untimed rows count as 1.0x in the means)."""
    n = len(rows)
    correct = [r for r in rows if r.get("status") == "correct"]
    eager = [speedups(r)[0] or 1.0 for r in rows]
    comp = [speedups(r)[1] or 1.0 for r in rows]
    return {"problems": n, "correct": len(correct),
            "partial": sum(bool(r.get("partial")) for r in correct),
            "library": sum(r.get("kind") == "library" for r in correct),
            "fast_1": sum((r.get("speedup_eager") or 0) > 1.0 for r in correct) / n if n else 0.0,
            "geomean_eager": geomean(eager), "geomean_compile": geomean(comp)}


def table_row(key: str, r: dict) -> list[str]:
    """One problem's cells, in :data:`HEADER` order."""
    se, sc = speedups(r)
    note = ",".join(r.get("guards") or []) or (r.get("partial_ops") and "torch: " + ",".join(r["partial_ops"])) or ""
    if r.get("status") != "correct" and r.get("feedback"):
        note = r["feedback"].splitlines()[0][:90]
    ok = r.get("status") == "correct"
    ms = r.get("candidate_ms") if ok else None
    roof = r.get("roofline") if ok else None
    gbps = r.get("achieved_gbps") if ok else None
    return [key, r.get("kind", "-"), r.get("status", "-"), "yes" if r.get("partial") else "",
            f"{se:.2f}" if se else "-", f"{sc:.2f}" if sc else "-", f"{ms:.4g}" if ms else "-",
            f"{100 * roof:.0f}" if roof else "-", f"{gbps:.0f}" if gbps else "-", note]


def memory_bound(row: dict) -> bool | None:
    """Whether a correct, timed row's roofline floor is moving its bytes (True) or its FLOPs
    (False), from its achieved rates against the datasheet peaks; None without them."""
    gbps, tflops = row.get("achieved_gbps"), row.get("achieved_tflops")
    if row.get("status") != "correct" or not gbps:
        return None
    return gbps * 1e9 / PEAK_BYTES_PER_S >= (tflops or 0.0) * 1e12 / PEAK_FP32_FLOPS


def bandwidth_figures(rows: list[dict], copy_gbps: float, target: float = 0.8) -> dict:
    """Of the memory-bound rows: how many, the median achieved fraction of ``copy_gbps`` (a
    measured device-to-device copy, read plus write), how many reach ``target`` of it, the
    ones that do not (``below``: ``[problem, fraction]``, the farthest first), and how many were
    timed with a block's runs queued (``queued``; the others waited for each run, host path and all)."""
    timed = [r for r in rows if memory_bound(r)]
    bound = sorted((r["achieved_gbps"] / copy_gbps, r.get("problem", "?")) for r in timed)
    fracs = [f for f, _ in bound]
    median = None
    if fracs:
        mid = len(fracs) // 2
        median = fracs[mid] if len(fracs) % 2 else (fracs[mid - 1] + fracs[mid]) / 2
    return {"memory_bound": len(fracs), "median_of_copy": median,
            "at_target": sum(f >= target for f in fracs), "target": target, "copy_gbps": copy_gbps,
            "below": [[p, f] for f, p in bound if f < target], "queued": sum(bool(r.get("queued")) for r in timed)}


def below_line(name: str, b: dict) -> str | None:
    """The memory-bound rows of :func:`bandwidth_figures` under its target, with their problem
    numbers as ``kernelbench.py run --problems`` takes them; None when there are none."""
    if not b.get("below"):
        return None
    rows = ", ".join(f"{p.split('/')[-1].split('_')[0]} ({100 * f:.0f}%)" for p, f in b["below"])
    numbers = " ".join(p.split("/")[-1].split("_")[0] for p, _ in b["below"])
    return f"{name}: below {100 * b['target']:.0f}%: {rows}; --problems {numbers}"


def bandwidth_line(name: str, b: dict) -> str:
    """One line of :func:`bandwidth_figures`."""
    if not b["memory_bound"]:
        return f"{name}: no timed memory-bound row"
    return (f"{name}: {b['memory_bound']} timed memory-bound rows, median {100 * b['median_of_copy']:.0f}% of "
            f"the {b['copy_gbps']:.0f} GB/s copy, {b['at_target']} at >= {100 * b['target']:.0f}%"
            f" ({b.get('queued', 0)} timed with queued runs)")


def render_table(rows: list[list[str]]) -> str:
    """A markdown table; ``rows[0]`` is the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "| " + " | ".join("-" * w for w in widths) + " |")
    return "\n".join(lines)


def figures_line(name: str, f: dict) -> str:
    """One line of figures for a group, e.g. ``level1: 80/100 correct (3 partial), fast_1 ...``."""
    def x(v: float | None) -> str:
        return f"{v:.3f}x" if v is not None else "-"

    library = f", {f['library']} library" if f.get("library") else ""
    return (f"{name}: {f['correct']}/{f['problems']} correct ({f['partial']} partial{library}), "
            f"fast_1 {f['fast_1']:.2f}, geomean {x(f['geomean_eager'])} eager, "
            f"{x(f['geomean_compile'])} torch.compile")
