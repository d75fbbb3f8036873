"""Write the verifier's own figures from bench reports into the seed kernels' sidecars.

    PYTHONPATH=. python benchmarks/seed_sidecars.py docs/results/h200/seeds-run7.json [...] [--dry-run]

Each REPORT is the ``results.json`` of ``python -m akg_rag.verify bench ... --report DIR`` (or its
``--json`` output). For every task that is ``correct`` with meaningful timings, the sidecar next to
its candidate (``NAME/{dsl}_{backend}.py`` -> ``NAME/{dsl}_{backend}.json``) gets ``measured``
replaced: times, speedups and roofline fraction from the report, the device, dtype and scale, and
``source`` naming the report. Where the verifier also timed CUDA graph replays (calls under 50 us,
where the host's launch path dominates the events) those figures are written and the baseline says
so. Figures the report lacks (no ``torch.compile`` baseline) become unknown rather than keeping a
number measured on an older kernel. Later reports win over earlier ones for the same task.
Retrieval ranks kernels measured slower than eager after the rest, so a stale sidecar misleads it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from akg_rag.records import KernelSidecar  # noqa: E402


def measured_from(result: dict[str, Any], scale: str, source: str) -> dict[str, Any] | None:
    """The sidecar's ``measured`` block from one verify result; None when it has no usable timing."""
    t = result.get("timings") or {}
    if result.get("status") != "correct" or not t.get("meaningful"):
        return None
    graph = t.get("graph_speedup_eager") is not None and t.get("graph_candidate_ms")
    cand = t["graph_candidate_ms"] if graph else t.get("candidate_ms")
    eager = t["graph_eager_ms"] if graph else t.get("eager_ms")
    speedup = t["graph_speedup_eager"] if graph else t.get("speedup_eager")
    if not cand or not eager or not speedup:
        return None
    roofline = t.get("roofline_fraction") or None
    if graph and roofline and t.get("candidate_ms"):
        roofline = roofline * t["candidate_ms"] / cand   # the same floor over the replayed time
    baseline = str(t.get("baseline") or "torch eager")
    baseline += ", CUDA graph replays" if graph else f", {t.get('method') or 'timed'}"
    out = {"device": t.get("device"), "dtype": "float32", "scale": scale if scale in ("small", "full") else None,
           "source": source, "candidate_ms": cand, "eager_ms": eager, "speedup_eager": speedup,
           "compile_ms": None if graph else t.get("compile_ms"),
           "speedup_compile": None if graph else t.get("speedup_compile"),
           "roofline_fraction": roofline, "baseline": baseline}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="bench results.json files (later ones win)")
    ap.add_argument("--root", default=".", help="where the candidate paths of the reports are relative to")
    ap.add_argument("--dry-run", action="store_true", help="print what would change, write nothing")
    args = ap.parse_args(argv)
    updates: dict[Path, dict[str, Any]] = {}
    for rep in args.reports:
        data = json.loads(Path(rep).read_text())
        scale = str((data.get("meta") or {}).get("scale") or "")
        for task in data.get("tasks") or []:
            cand = task.get("candidate")
            m = measured_from(task.get("result") or {}, scale, rep) if cand else None
            if m is not None:
                updates[(Path(args.root) / cand).with_suffix(".json")] = m
    changed = 0
    for path, m in sorted(updates.items()):
        if not path.is_file():
            print(f"{path}: no sidecar, skipped", file=sys.stderr)
            continue
        side = json.loads(path.read_text())
        before = (side.get("measured") or {}).get("speedup_eager")
        side["measured"] = {k: v for k, v in m.items() if v is not None}
        KernelSidecar.model_validate(side)   # the sidecar must still load
        print(f"{path.parent.name:32s} x eager {before if before is None else round(before, 2)} -> "
              f"{m['speedup_eager']:.2f}")
        if not args.dry_run:
            path.write_text(json.dumps(side, indent=2) + "\n")
        changed += 1
    print(f"{changed} sidecar(s) {'would change' if args.dry_run else 'updated'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
