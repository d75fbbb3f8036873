"""The run's report: ``report.json`` and ``report.md`` of every attempt, plus the kernel and sketch files.

Each attempt records the route the conductor took after it, the feedback the coder had received,
the verification status and timings, and the retrieved kernel and document ids in its prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def build_report(state: dict[str, Any], thread_id: str = "") -> dict[str, Any]:
    """A JSON-ready report of a (finished or interrupted) run's state."""
    events = state.get("events", [])
    routes = [e.get("route") for e in events if e.get("node") == "conductor" and e.get("after") == "verifier"]
    attempts = []
    for i, attempt in enumerate(state.get("attempts", [])):
        attempts.append({**attempt, "route": routes[i] if i < len(routes) else None})
    best = state.get("best")
    return {
        "thread_id": thread_id,
        "task": state.get("task_path"),
        "dsl": state.get("dsl"),
        "backend": state.get("backend"),
        "status": state.get("status", "running"),
        "message": state.get("message", ""),
        "op_name": (state.get("analysis") or {}).get("op_name"),
        "best": None if not best else {k: best.get(k) for k in ("iteration", "origin", "timings", "review",
                                                                "partial", "partial_ops")},
        "lowering": state.get("lowering"),
        "library_lowering": state.get("library_lowering"),
        "retrieved": {
            "kernel_ids": [h["id"] for h in state.get("kernel_hits", [])],
            "doc_ids": [d["id"] for d in state.get("doc_hits", [])],
            "stages": state.get("retrieval_report", []),
        },
        "sketch": state.get("sketch", ""),
        "recommendations": state.get("recommendations", []),
        "attempts": attempts,
        "events": events,
        "written_back": state.get("written_back", []),
        "iterations": state.get("iteration", 0),
        "designer_rounds": state.get("designer_rounds", 0),
        "opt_passes": state.get("opt_pass", 0),
        "elapsed_s": round(float(state.get("elapsed_s", 0.0)), 3),
    }


def _fmt(value: Any, spec: str = ".4g") -> str:
    return "-" if value is None else format(value, spec)


def _speedup(t: dict[str, Any], key: str) -> str:
    """``0.45 [0.41-0.49]``; ``~1 (0.97-1.1)`` for no measurable difference; ``-`` when unknown."""
    s, low, high = t.get(key), t.get(f"{key}_low"), t.get(f"{key}_high")
    if s is None:
        return "-"
    if low is None or high is None:
        return f"{s:.2f}"
    if low <= 1.0 <= high:
        return f"~1 ({low:.2f}-{high:.2f})"
    return f"{s:.2f} [{low:.2f}-{high:.2f}]"


def render_markdown(report: dict[str, Any]) -> str:
    """A human-readable version of :func:`build_report`'s dict."""
    lines = [
        f"# Generation run {report['thread_id']}".rstrip(),
        "",
        f"- task: `{report['task']}` ({report['op_name']}), target {report['dsl']}/{report['backend']}",
        f"- status: **{report['status']}** - {report['message']}",
        f"- iterations {report['iterations']}, designer rounds {report['designer_rounds']}, "
        f"optimisation passes {report['opt_passes']}, {report['elapsed_s']:.1f} s in nodes",
        f"- retrieved kernels: {', '.join(report['retrieved']['kernel_ids']) or 'none'}",
        f"- retrieved docs: {', '.join(report['retrieved']['doc_ids']) or 'none'}",
    ]
    if report["written_back"]:
        lines.append(f"- written back: {', '.join(report['written_back'])}")
    lines += ["", "## Attempts", "",
              "| # | phase | origin | feedback received | status | ms | vs eager | vs compile | route |",
              "| - | - | - | - | - | - | - | - | - |"]
    for a in report["attempts"]:
        t = a.get("timings") or {}
        fb = a.get("feedback_received") or {}
        received = f"{fb.get('kind')}: {' '.join(str(fb.get('text', '')).split())[:60]}" if fb else "-"
        lines.append(f"| {a['iteration']} | {a['phase']} | {a.get('origin') or '-'} | {received.replace('|', '/')} "
                     f"| {a['status']} | {_fmt(t.get('candidate_ms'))} | {_speedup(t, 'speedup_eager')} "
                     f"| {_speedup(t, 'speedup_compile')} | {a.get('route') or '-'} |")
    if report["recommendations"]:
        lines += ["", "## Analyst recommendations", ""] + [f"- {r}" for r in report["recommendations"]]
    lines += ["", "## Node log", ""] + [
        f"- {e['node']}: {e['status']} - {e.get('detail', '')}" for e in report["events"]]
    return "\n".join(lines) + "\n"


def write_outputs(state: dict[str, Any], out_dir: str | Path, thread_id: str = "") -> dict[str, Path]:
    """Write kernel.py (best verified kernel), sketch.txt, report.json and report.md into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = build_report(state, thread_id)
    paths = {"report_json": out / "report.json", "report_md": out / "report.md"}
    paths["report_json"].write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    paths["report_md"].write_text(render_markdown(report), encoding="utf-8")
    best = state.get("best")
    if best:
        paths["kernel"] = out / "kernel.py"
        paths["kernel"].write_text(best["code"], encoding="utf-8")
    sketch = (best or {}).get("sketch") or state.get("sketch")
    if sketch:
        paths["sketch"] = out / "sketch.txt"
        paths["sketch"].write_text(sketch, encoding="utf-8")
    return paths
