"""Shrink KernelBench-format problems to sizes a CPU verifies in seconds.

    python benchmarks/kb_shrink.py PATH/TO/KernelBench /tmp/kbs [--max-numel 65536] [--json]

Takes a folder of KernelBench-format problems (``*.py`` directly in it, or in ``level*/``
subfolders, which are kept) and writes a shrunken copy of each problem to the output folder, which
must lie outside this repository (the copies are KernelBench's text with other numbers, never
project files). Only module-level literal integers change; the rest of each file is kept byte for
byte, and a comment at its top lists the changes.

How (generic rules, no per-problem table; the slot rules are in ``shrink_rules.py``):
1. The problem runs on meta tensors (nothing is allocated) and its cost is measured: the largest
   tensor any op makes (elements) and the FLOPs of its matmuls and convolutions.
2. While the cost is over budget: a batch-like size (the first size of every input and of nothing
   else) halves first, down to 2; then every shrinkable size halves together, which keeps their
   ratios (a long reduction stays long relative to the rest). A step whose meta run fails is
   retried one size group at a time (sizes of equal value move together, so sizes that must agree
   still do); a group that still fails is frozen where it is.
3. The shrunken problem then runs for real on the CPU and is captured by the lowering
   (``akg_rag.lower.capture``); if either fails, the previous, larger step is tried (shrink less).

``shrink_report.json`` in the output folder lists every problem: ``shrunk`` (under budget),
``partial`` (smaller but over budget: frozen sizes), ``unchanged`` (already small), or
``failed`` (no version that runs and captures was found; no copy is written).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import FlopCounterMode

sys.path.insert(0, str(Path(__file__).resolve().parent))  # shrink_rules, when run by path
from shrink_rules import FLOOR, Slot, find_slots, halve, kept_divisors, render  # noqa: E402

MAX_NUMEL = 1 << 16   # largest tensor of a shrunk problem: 64 Ki elements (256 kB in fp32)
MAX_FLOPS = 1 << 27   # matmul/conv FLOPs of one forward (~0.1 GFLOP: the Triton interpreter's pace)
WALK_BACK = 4         # larger steps tried when the most shrunk one does not run or capture


class _Largest(TorchDispatchMode):
    """Records the element count of the largest tensor any op returns."""

    def __init__(self) -> None:
        super().__init__()
        self.numel = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.numel = max(self.numel, t.numel())
        return out


def measure(path: Path, source: str) -> tuple[int, int]:
    """(largest tensor in elements, FLOPs) of building and running the problem on meta tensors.
    Raises whatever the problem raises (a size that no longer fits)."""
    from akg_rag.analysis.trace import MetaRedirect
    from akg_rag.task import load_task

    largest, flops = _Largest(), FlopCounterMode(display=False)
    with torch.device("meta"), MetaRedirect(), largest, flops, torch.no_grad():
        task = load_task(path, source)
        model = task.model_cls(*task.get_init_inputs())
        for inputs in task.input_sets():
            model(*inputs)
    return largest.numel, flops.get_total_flops()


def over(cost: tuple[int, int], budget: tuple[int, int]) -> bool:
    return cost[0] > budget[0] or cost[1] > budget[1]


def _step(path: Path, source: str, slots: list[Slot], values: dict[str, int], keys: list[str],
          frozen: set[str], divisors: set[int]) -> tuple[dict[str, int], tuple[int, int]] | None:
    """Halve the slots ``keys`` together (equal values move as one group); on a failed meta run,
    retry group by group, freezing the groups that fail. None when nothing moved."""
    floor = {s.key: (2 if s.batch_like else FLOOR) for s in slots}
    batch = {s.key for s in slots if s.batch_like}

    def moved(group: list[str]) -> dict[str, int] | None:
        new = dict(values)
        for k in group:
            h = halve(values[k], divisors, floor[k], stay_above=k not in batch)
            if h is None:
                frozen.add(k)
                return None
            new[k] = h
        return new

    def attempt(new: dict[str, int]) -> tuple[int, int] | None:
        try:
            return measure(path, render(source, slots, new))
        except Exception:  # noqa: BLE001 - a size that no longer fits: this group stays
            return None

    # sizes equal to a moving one may have to agree with it (x * t over (B, B)): on failure, the
    # step is tried again with them
    equal = [s.key for s in slots if s.shrinkable and s.key not in keys and s.key not in frozen
             and values[s.key] in {values[k] for k in keys}]
    for tried in (keys, keys + equal) if equal else (keys,):
        new = moved(tried)
        if new is not None:
            cost = attempt(new)
            if cost is not None:
                return new, cost
    groups: dict[int, list[str]] = {}
    for k in keys:
        if k not in frozen:
            groups.setdefault(values[k], []).append(k)
    result = None
    for _, group in sorted(groups.items(), reverse=True):
        new = moved(group)
        cost = attempt(new) if new is not None else None
        if cost is None:
            frozen.update(group)
            continue
        values, result = new, (new, cost)
    return result


def shrink_source(path: Path, source: str, budget: tuple[int, int]) -> tuple[list[dict[str, int]], list, list[Slot]]:
    """Every accepted step from the original values down to the budget (or until nothing can
    move), with its cost; the first entry is the original."""
    slots = find_slots(source)
    divisors = kept_divisors(slots)
    values = {s.key: s.value for s in slots}
    cost = measure(path, source)
    history, costs = [dict(values)], [cost]
    frozen: set[str] = set()
    while over(cost, budget):
        live = [s for s in slots if s.shrinkable and s.key not in frozen]
        batch = [s.key for s in live if s.batch_like and values[s.key] > 3]
        keys = batch or [s.key for s in live if values[s.key] > FLOOR]
        if not keys:
            break
        step = _step(path, source, slots, values, keys, frozen, divisors)
        if step is None:
            continue
        values, cost = step
        history.append(dict(values))
        costs.append(cost)
    return history, costs, slots


def validate(path: Path, source: str) -> str | None:
    """Run the problem for real on the CPU, then capture it for the lowering; None when both
    work, else the reason. Runs in this process: a candidate step is at most 16x the budget."""
    from akg_rag.lower.capture import capture
    from akg_rag.task import load_task

    try:
        task = load_task(path, source)
        torch.manual_seed(0)
        model = task.model_cls(*task.get_init_inputs())
        with torch.no_grad():
            for inputs in task.input_sets():
                model(*inputs)
        capture(path, source)
    except Exception as e:  # noqa: BLE001 - any failure means: not this step
        return f"{type(e).__name__}: {e}".splitlines()[0][:300]
    return None


def _header(slots: list[Slot], values: dict[str, int]) -> str:
    changes = [f"{s.key} {s.value} -> {values[s.key]}" for s in slots if values[s.key] != s.value]
    return "# kb_shrink: " + (", ".join(changes) or "no change") + "\n"


def shrink_problem(path: Path, budget: tuple[int, int]) -> tuple[str | None, dict]:
    """(shrunken source or None, report row) for one problem file."""
    started = time.monotonic()
    source = path.read_text()
    row: dict = {"problem": path.stem}
    try:
        history, costs, slots = shrink_source(path, source, budget)
    except Exception as e:  # noqa: BLE001 - the original does not even run on meta tensors
        row.update(status="failed", reason=f"meta run: {type(e).__name__}: {e}"[:300])
        return None, row
    row["original"] = {"numel": costs[0][0], "flops": costs[0][1]}
    tried = 0
    for values, cost in zip(reversed(history), reversed(costs)):
        if tried == WALK_BACK or cost[0] > 16 * budget[0]:
            break
        tried += 1
        text = render(source, slots, values)
        reason = validate(path, text)
        if reason is None:
            status = "unchanged" if len(history) == 1 else "partial" if over(cost, budget) else "shrunk"
            row.update(status=status, numel=cost[0], flops=cost[1], steps_back=tried - 1,
                       changes={s.key: [s.value, values[s.key]] for s in slots if values[s.key] != s.value},
                       seconds=round(time.monotonic() - started, 2))
            return _header(slots, values) + text, row
        row.setdefault("errors", []).append(reason)
    row.update(status="failed", reason=(row.get("errors") or ["still over 16x the budget"])[0],
               seconds=round(time.monotonic() - started, 2))
    return None, row


def problems(src: Path) -> list[Path]:
    """Problem files under ``src``: its own ``*.py`` and those of its ``level*`` subfolders."""
    found = [p for p in src.glob("*.py") if not p.name.startswith("_")]
    for sub in sorted(src.glob("level*")):
        found += [p for p in sub.glob("*.py") if not p.name.startswith("_")]
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    """Shrink every problem of a folder; print one line per problem and the list of failures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("src", type=Path, help="a folder of KernelBench-format problems (or of level* folders)")
    p.add_argument("out", type=Path, help="output folder, outside this repository")
    p.add_argument("--max-numel", type=int, default=MAX_NUMEL, help="largest tensor, in elements")
    p.add_argument("--max-flops", type=int, default=MAX_FLOPS, help="matmul/conv FLOPs per forward")
    p.add_argument("--only", nargs="*", default=None, help="problem file stems to shrink (default: all)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    repo = Path(__file__).resolve().parents[1]
    out = args.out.resolve()
    if out == repo or repo in out.parents:
        p.error(f"{out} is inside the repository: shrunken problems are not project files")
    budget = (args.max_numel, args.max_flops)
    report = []
    for path in problems(args.src):
        if args.only and path.stem not in args.only:
            continue
        text, row = shrink_problem(path, budget)
        row["path"] = str(path.relative_to(args.src))
        if text is not None:
            dest = out / path.relative_to(args.src)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text)
        report.append(row)
        if not args.json:
            what = ", ".join(f"{k} {a}->{b}" for k, (a, b) in row.get("changes", {}).items())
            print(f"{row['path']}: {row['status']} {what or row.get('reason', '')}"[:200], flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "shrink_report.json").write_text(json.dumps(report, indent=1) + "\n")
    failed = [r["path"] for r in report if r["status"] in ("failed", "partial")]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{len(report)} problems; not shrunk to budget: {len(failed)}" + "".join(f"\n  {f}" for f in failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
