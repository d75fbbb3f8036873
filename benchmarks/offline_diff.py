"""What a lowering change did to compiled kernels, before any GPU time: two candidate trees (two
``kernelbench.py prepare`` outputs, before and after the change) compiled for an NVIDIA GPU on a
machine without one (``akg_rag.lower.offline``), launch by launch.

    PYTHONPATH=. python benchmarks/offline_diff.py KB OLD NEW [--limit 24] [--json OUT.jsonl]

Only candidates whose text differs are compiled (up to ``--limit``, a fixed sample by ``--seed``);
per candidate it prints each launch's registers, spill bytes, PTX instructions, programs a
multiprocessor holds at once and global loads in the machine code (``32r/0s/393i/16p/38L``),
old -> new, and at the end how many launches changed which way. What it cannot tell: speed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def changed(old: Path, new: Path) -> list[str]:
    """Candidate files (``level1/19_ReLU/lowered.py``) present in both trees whose text differs."""
    out = []
    for f in sorted(new.rglob("*.py")):
        rel = f.relative_to(new)
        g = old / rel
        if g.is_file() and g.read_bytes() != f.read_bytes():
            out.append(str(rel))
    return out


def task_of(kb: Path, rel: str) -> Path:
    """``level1/19_ReLU/lowered.py`` -> ``KB/level1/19_ReLU.py``."""
    level, problem = Path(rel).parts[:2]
    return kb / level / f"{problem}.py"


def compare(kb: Path, old: Path, new: Path, rel: str, arch: int) -> dict:
    from akg_rag.lower.offline import inspect_candidate

    row: dict = {"candidate": rel}
    for tag, root in (("old", old), ("new", new)):
        try:
            row[tag] = [{"kernel": r.kernel, "registers": r.registers, "spill_bytes": r.spill_bytes,
                         "instructions": r.instructions, "sass_loads": r.sass_loads,
                         "programs_per_sm": r.programs_per_sm,
                         "occupancy_limit": r.occupancy_limit, "error": r.error}
                        for r in inspect_candidate(task_of(kb, rel), root / rel, arch)]
        except Exception as e:  # noqa: BLE001 - reported per candidate
            row[tag] = f"{type(e).__name__}: {e}"[:300]
    return row


def summary(rows: list[dict]) -> dict:
    """Launch pairs (same position in both) by what changed."""
    out = {"launches": 0, "more_registers": 0, "fewer_registers": 0, "more_spills": 0,
           "more_instructions": 0, "fewer_instructions": 0, "more_resident": 0, "fewer_resident": 0,
           "more_loads": 0, "fewer_loads": 0, "errors": 0, "launch_count_changed": 0}
    for row in rows:
        old, new = row.get("old"), row.get("new")
        if not isinstance(old, list) or not isinstance(new, list):
            out["errors"] += 1
            continue
        if len(old) != len(new):
            out["launch_count_changed"] += 1
        for a, b in zip(old, new):
            out["launches"] += 1
            out["errors"] += bool(b["error"])
            out["more_registers"] += b["registers"] > a["registers"]
            out["fewer_registers"] += b["registers"] < a["registers"]
            out["more_spills"] += b["spill_bytes"] > a["spill_bytes"]
            out["more_instructions"] += b["instructions"] > a["instructions"]
            out["fewer_instructions"] += b["instructions"] < a["instructions"]
            # programs a multiprocessor holds at once (rows written before the field read 0: no change)
            resident_old, resident_new = a.get("programs_per_sm", 0), b.get("programs_per_sm", 0)
            if resident_old and resident_new:
                out["more_resident"] += resident_new > resident_old
                out["fewer_resident"] += resident_new < resident_old
            # global loads a thread issues in the machine code (0: not known on that side)
            loads_old, loads_new = a.get("sass_loads", 0), b.get("sass_loads", 0)
            if loads_old and loads_new:
                out["more_loads"] += loads_new > loads_old
                out["fewer_loads"] += loads_new < loads_old
    return out


def _cell(r: dict) -> str:
    if r["error"]:
        return "ERR"
    resident = f"/{r['programs_per_sm']}p" if r.get("programs_per_sm") else ""
    loads = f"/{r['sass_loads']}L" if r.get("sass_loads") else ""
    return f"{r['registers']}r/{r['spill_bytes']}s/{r['instructions']}i{resident}{loads}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kb", type=Path, help="KernelBench checkout (its level folders hold the tasks)")
    p.add_argument("old", type=Path, help="candidate tree before the change")
    p.add_argument("new", type=Path, help="candidate tree after it")
    p.add_argument("--limit", type=int, default=24, help="candidates compiled at most (default 24)")
    p.add_argument("--seed", type=int, default=0, help="which sample of the changed ones")
    p.add_argument("--arch", type=int, default=90, help="compute capability x 10 (90: H100/H200)")
    p.add_argument("--json", type=Path, help="append one JSON line per candidate")
    args = p.parse_args(argv)
    for d in (args.kb, args.old, args.new):
        if not d.is_dir():
            p.error(f"{d} is not a folder")
    names = changed(args.old, args.new)
    print(f"{len(names)} candidates differ", flush=True)
    if len(names) > args.limit:
        names = sorted(random.Random(args.seed).sample(names, args.limit))
    rows = []
    for rel in names:
        row = compare(args.kb, args.old, args.new, rel, args.arch)
        rows.append(row)
        if args.json:
            with args.json.open("a") as f:
                f.write(json.dumps(row) + "\n")
        old, new = row["old"], row["new"]
        if isinstance(old, list) and isinstance(new, list):
            cells = "  ".join(f"{_cell(a)} -> {_cell(b)}" for a, b in zip(old, new))
        else:
            cells = f"old: {old if isinstance(old, str) else 'ok'}; new: {new if isinstance(new, str) else 'ok'}"
        print(f"{rel}: {cells}", flush=True)
    print(json.dumps(summary(rows)))
    return 1 if summary(rows)["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
