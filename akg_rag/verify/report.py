"""Writing a bench report: ``results.json``, ``report.md`` and ``speedups.png``.

matplotlib is optional (layer 1 may not have it): without it the plot is skipped and the report
says so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from akg_rag.verify.bench import BenchItem, BenchSummary, format_summary, table_rows


def _markdown_table(rows: list[list[str]]) -> str:
    esc = [[c.replace("|", "\\|") for c in r] for r in rows]
    lines = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join(" --- " for _ in esc[0]) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(lines)


def plot_speedups(items: list[BenchItem], path: Path) -> str | None:
    """Bar chart of speedup vs eager per correct task (log scale); returns a note if skipped."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: speedups.png was not drawn"
    data = [(it.name, it.speedup("eager")) for it in items if it.speedup("eager")]
    if not data:
        return "no correct task with a measured speedup: speedups.png was not drawn"
    names = [d[0] for d in data]
    values = [float(d[1]) for d in data]  # type: ignore[arg-type]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(names) + 2), 4.5))
    colors = ["tab:green" if v >= 1 else "tab:red" for v in values]
    ax.bar(range(len(names)), values, color=colors)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup vs eager (log)")
    ax.set_title(f"geomean {math.exp(sum(math.log(v) for v in values) / len(values)):.2f}x over {len(values)} tasks")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def write_report(out_dir: str | Path, items: list[BenchItem], summary: BenchSummary,
                 meta: dict[str, Any]) -> dict[str, str]:
    """Write the three report files under ``out_dir``; returns {file: path or note}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = {"meta": meta, "summary": summary.to_dict(), "tasks": [it.to_dict() for it in items]}
    (out / "results.json").write_text(json.dumps(results, indent=2))
    note = plot_speedups(items, out / "speedups.png")
    lines = [f"# Benchmark: {meta.get('dsl')}/{meta.get('backend')}", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "## Summary", "", "```", format_summary(summary), "```", "", "## Tasks", "",
              _markdown_table(table_rows(items)), ""]
    lines += [f"_{note}_" if note else "![speedups](speedups.png)", ""]
    failing = [it for it in items if it.status not in ("correct", "missing")]
    if failing:
        lines += ["## Feedback on failures", ""]
        for it in failing:
            text = it.error or (it.result.feedback if it.result else "")
            lines += [f"### {it.name} ({it.status})", "", "```", text.strip()[:2000], "```", ""]
    (out / "report.md").write_text("\n".join(lines))
    return {"results.json": str(out / "results.json"), "report.md": str(out / "report.md"),
            "speedups.png": note or str(out / "speedups.png")}
