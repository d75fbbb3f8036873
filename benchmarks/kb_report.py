"""The figures side of ``kernelbench.py``: reading result rows and the ``report`` subcommand.

Rows come from ``run``'s JSON-lines files; :func:`_load` keeps the newest row of each problem and
kind (stamped rows by their ``finished`` stamp, unstamped ones in the files' natural name order,
then line order), :func:`summary` scores each level (a failure counts as 1.0x) and :func:`report`
prints the table and the figures, optionally as markdown and an SVG plot.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # figures.py, when imported by path
from figures import (HEADER, bandwidth_figures, bandwidth_line, below_line, figures_line, render_table,  # noqa: E402
                     score, table_row)
from compile_baseline import anchored, baseline_rows  # noqa: E402

KINDS = ("lowered", "library", "reused")
COPY_GBPS = 4203.7   # GB/s, read + write: the H200's measured device-to-device copy (docs/results/h200/hw_probe.json)
# the kinds each report mode scores (the faster correct one per problem)
MODE_KINDS = {"lower": ("lowered", "library"), "normal": KINDS}


def _rows(path: str | Path) -> list[dict]:
    """The rows of a results file; a line cut by a kill (not JSON, or without problem and kind) is
    skipped, so that problem runs again."""
    path = Path(path)
    rows = []
    for line in path.read_text().splitlines() if path.is_file() else []:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "problem" in row and "kind" in row:
            rows.append(row)
    return rows


# ---- report ----------------------------------------------------------------------------------

def _natural(path: str) -> list:
    """Sort key that puts ``run9`` before ``run10``: digit runs compare as numbers."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(path))]


def _load(paths: list[str]) -> dict[str, dict[str, dict]]:
    """Rows by problem and kind; a newer row replaces an older one, except that a correctness-only
    row (from a ``--jobs`` sweep) never replaces a timed one. Newer: rows stamped ``finished``
    (every row ``run`` writes) come after unstamped ones, by stamp; unstamped rows in the files'
    natural name order (``run9`` before ``run10``), then line order. Rows without a verdict
    (``offline``'s compile reports, which may share a folder with the verdicts) are not read."""
    ordered = []
    for i, p in enumerate(sorted(paths, key=_natural)):
        for j, row in enumerate(_rows(p)):
            if "status" in row:
                stamp = row.get("finished")
                ordered.append(((stamp is not None, stamp or 0.0, i, j), row))
    by: dict[str, dict[str, dict]] = {}
    for _, row in sorted(ordered, key=lambda t: t[0]):
        kinds = by.setdefault(row["problem"], {})
        old = kinds.get(row["kind"])
        if old is not None and old.get("speedup_eager") is not None and row.get("timed") is False:
            continue
        kinds[row["kind"]] = row
    return by


def _pick(rows: dict[str, dict], mode: str) -> dict:
    """The row a mode scores: the faster correct one of the mode's kinds (:data:`MODE_KINDS`), else
    the lowered row (a failure), else any."""
    kinds = MODE_KINDS[mode]
    good = [rows[k] for k in kinds if k in rows and rows[k].get("status") == "correct"]
    if good:
        return max(good, key=lambda r: r.get("speedup_eager") or 0.0)
    return next((rows[k] for k in kinds if k in rows), None) or next(iter(rows.values()))


def summary(by: dict[str, dict[str, dict]], mode: str, bases: dict[str, dict] | None = None,
            exclude: list[str] | None = None, copy_gbps: float = COPY_GBPS) -> tuple[list[list[str]], dict]:
    """Per-problem rows and per-level figures; a failure counts as 1.0x in the geometric means.
    ``bases`` (compile baselines by problem) fill in eager-anchored compile figures; problems
    matching an ``exclude`` pattern (fnmatch on ``level1/50_conv...``) are left out of both. Each
    level's figures carry its memory-bound rows' bandwidth against ``copy_gbps``."""
    import fnmatch

    rows = [list(HEADER)]
    levels: dict[int, list[dict]] = {}
    for key in sorted(by, key=lambda k: (k.split("/")[0], int(k.split("/")[1].split("_")[0]))):
        if any(fnmatch.fnmatch(key, pat) for pat in exclude or ()):
            continue
        r = anchored(_pick(by[key], mode), (bases or {}).get(key))
        levels.setdefault(int(r.get("level", key[5])), []).append(r)
        rows.append(table_row(key, r))
    figures = {f"level{k}": score(v) for k, v in sorted(levels.items())}
    for k, v in sorted(levels.items()):
        figures[f"level{k}"]["compile_anchored"] = sum(r.get("compile_method") == "eager-anchored" for r in v)
        figures[f"level{k}"]["bandwidth"] = bandwidth_figures(v, copy_gbps)
    return rows, figures


def report(args: argparse.Namespace) -> int:
    """Print (and optionally write) the per-problem table and the per-level figures."""
    import fnmatch

    by = _load(args.results)
    bases = baseline_rows(args.baselines)
    rows, figures = summary(by, args.mode, bases, args.exclude, args.copy_gbps)
    table = render_table(rows)
    lines = [f"mode: {args.mode}"] + [figures_line(lv, f) for lv, f in figures.items()]
    lines += [bandwidth_line(lv, f["bandwidth"]) for lv, f in figures.items()]
    lines += [x for x in (below_line(lv, f["bandwidth"]) for lv, f in figures.items()) if x]
    if args.exclude:
        lines.append(f"left out: problems matching {' '.join(args.exclude)}")
    if bases:
        n = sum(f.get("compile_anchored", 0) for f in figures.values())
        lines.append(f"torch.compile figures of {n} problem(s) eager-anchored (speedup_eager x compile_ms / "
                     "eager_ms, the baseline from `baselines`); the rest timed beside the candidate or none (1.0x)")
    text = "\n".join(lines)
    if args.json:   # for scripts: nothing but the JSON on stdout
        print(json.dumps({"figures": figures, "rows": [dict(zip(rows[0], r)) for r in rows[1:]]}, indent=1))
    else:
        print(table)
        print(text)
    if args.markdown:
        Path(args.markdown).write_text(f"{text}\n\n{table}\n")
    if args.plot:
        _plot({k: v for k, v in by.items() if not any(fnmatch.fnmatch(k, p) for p in args.exclude or ())},
              args.mode, figures, args.plot, bases)
        print(f"plot: {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _plot(by: dict[str, dict[str, dict]], mode: str, figures: dict, path: str,
          bases: dict[str, dict] | None = None) -> None:
    """Per level, the speedups of the rows a mode scores (over eager and over torch.compile)."""
    from plot import write_svg

    groups: dict[str, dict] = {}
    for key in by:
        r = anchored(_pick(by[key], mode), (bases or {}).get(key))
        g = groups.setdefault(f"level{r.get('level', key[5])}", {"eager": [], "compile": []})
        if r.get("status") == "correct":
            for name, field in (("eager", "speedup_eager"), ("compile", "speedup_compile")):
                if r.get(field):
                    g[name].append(float(r[field]))
    for name, g in groups.items():
        f = figures.get(name, {})
        g["problems"] = f.get("problems", 0)
        g["means"] = {"eager": f.get("geomean_eager"), "compile": f.get("geomean_compile")}
    write_svg(path, dict(sorted(groups.items())))


# ---- repeat ----------------------------------------------------------------------------------

def repeat_rows(first: list[dict], second: list[dict]) -> list[dict]:
    """Problems timed correct in both runs (same kind and, where the rows record them, the same task
    and candidate sources): each run's speedup over eager (the event
    figure the report scores; the CUDA-graph replay figure beside it where the verifier took one)
    and the second's change from the first."""
    from figures import speedups

    def timed(rows: list[dict]) -> dict[tuple[str, str], dict]:
        return {(r["problem"], r["kind"]): r for r in rows
                if r.get("status") == "correct" and speedups(r)[0]}

    a, b = timed(first), timed(second)
    out = []
    for key in sorted(a.keys() & b.keys(), key=lambda k: (k[0].split("/")[0], int(k[0].split("/")[1].split("_")[0]), k[1])):
        if a[key].get("sources") and b[key].get("sources") and a[key]["sources"] != b[key]["sources"]:
            continue   # another task or candidate text: not a repeat
        sa, sb = speedups(a[key])[0], speedups(b[key])[0]
        ga, gb = a[key].get("graph_speedup_eager"), b[key].get("graph_speedup_eager")
        out.append({"problem": key[0], "kind": key[1], "first": sa, "second": sb, "change": sb / sa - 1.0,
                    "first_ms": a[key].get("candidate_ms"), "second_ms": b[key].get("candidate_ms"),
                    "graph_change": gb / ga - 1.0 if ga and gb else None})
    return out


def repeat(args: argparse.Namespace) -> int:
    """Print how far two runs of the same candidates agree: per problem and in all (``--tolerance``)."""
    rows = repeat_rows(_rows(args.first), _rows(args.second))
    if not rows:
        print("no problem is timed correct in both files", file=sys.stderr)
        return 1
    within = [r for r in rows if abs(r["change"]) <= args.tolerance]
    summary = {"problems": len(rows), "within": len(within), "tolerance": args.tolerance,
               "largest_change": max(abs(r["change"]) for r in rows)}
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=1))
        return 0
    table = [["problem", "kind", "x eager 1", "x eager 2", "change", "ms 1", "ms 2", "graph change"]]
    for r in rows:
        table.append([r["problem"], r["kind"], f"{r['first']:.3f}", f"{r['second']:.3f}", f"{100 * r['change']:+.1f}%",
                      f"{r['first_ms']:.4g}" if r["first_ms"] else "-", f"{r['second_ms']:.4g}" if r["second_ms"] else "-",
                      f"{100 * r['graph_change']:+.1f}%" if r["graph_change"] is not None else "-"])
    print(render_table(table))
    print(f"{len(within)} of {len(rows)} within {100 * args.tolerance:.0f}% of the first run; "
          f"largest change {100 * summary['largest_change']:.1f}%")
    return 0
