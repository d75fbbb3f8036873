"""Benchmarking a directory of tasks against a directory of candidates.

Layout: a task is ``TASKS/NAME.py`` or ``TASKS/NAME/task.py``; its candidate is ``CANDS/NAME.py`` or
``CANDS/NAME/{dsl}_{backend}.py``. So ``bench(knowledge/kernels, knowledge/kernels, cpp, cpu)``
benches the seed library. Summary figures follow KernelBench: ``fast_p`` is the fraction of *all*
tasks that are correct and faster than eager by more than p (a missing candidate counts as a
failure); geometric-mean speedups are taken over correct tasks. ``fast_p_full`` and
``fast_p_partial`` split ``fast_p`` between full kernels and partial candidates (a vendor call kept,
torch computing part of the work), which are never counted as full kernels.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from akg_rag.errors import AkgError, ConfigError
from akg_rag.task import read_source, source_hash
from akg_rag.verify import figures as task_figures
from akg_rag.verify.executor import Executor, LocalExecutor, make_job
from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.result import VerifyResult

FAST_P = (0.0, 1.0, 1.5, 2.0)


@dataclass
class BenchItem:
    """One task, its candidate (None when missing) and, once run, its result or error."""

    name: str
    task: Path
    candidate: Path | None
    result: VerifyResult | None = None
    error: str | None = None
    sources: dict[str, str] | None = None   # content hashes of the task and candidate files as verified
    reused: bool = False                     # the result comes from an earlier run (``resume``)

    @property
    def status(self) -> str:
        if self.candidate is None:
            return "missing"
        if self.error is not None:
            return "error"
        return self.result.status if self.result else "pending"

    def speedup(self, baseline: str = "eager") -> float | None:
        """Speedup over ``eager`` or ``compile`` when correct and measured, else None."""
        r = self.result
        if r is None or not r.ok or r.timings is None:
            return None
        return r.timings.speedup_eager if baseline == "eager" else r.timings.speedup_compile

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "task": str(self.task),
                "candidate": str(self.candidate) if self.candidate else None, "status": self.status,
                "error": self.error, "result": self.result.to_dict() if self.result else None,
                "sources": self.sources, "reused": self.reused}

    def fingerprint(self) -> dict[str, str] | None:
        """Content hashes of the task's and the candidate's text now (None without a readable candidate)."""
        if self.candidate is None:
            return None
        try:
            return {k: source_hash(read_source(p)) for k, p in (("task", self.task), ("candidate", self.candidate))}
        except AkgError:
            return None


RESUME_KEYS = ("dsl", "backend", "scale", "trials")   # a run's meta that must match to reuse its results


def resume(items: list[BenchItem], previous: dict[str, Any], meta: dict[str, Any], timing: bool) -> list[str]:
    """Carry over into ``items`` the results of an earlier bench (its ``results.json``, complete or
    cut short) that need no new run: same name, same task and candidate text (content hash), correct,
    and timed when this run times. Everything else runs again: a changed kernel, a failure, a task
    the earlier run left pending or only checked. Returns the names carried over; none when the
    earlier run's dsl, backend, scale or trials differ from ``meta``."""
    old = previous.get("meta") or {}
    if any(old.get(k) != meta.get(k) for k in RESUME_KEYS):
        return []
    by_name = {t.get("name"): t for t in previous.get("tasks") or [] if isinstance(t, dict)}
    kept = []
    for it in items:
        t = by_name.get(it.name)
        if not t or t.get("status") != "correct" or not t.get("result") or not t.get("sources"):
            continue
        if t["sources"] != it.fingerprint():
            continue
        r = VerifyResult.from_dict(t["result"])
        if not r.ok or (timing and r.timings is None):
            continue
        it.result, it.sources, it.reused = r, t["sources"], True
        kept.append(it.name)
    return kept


@dataclass
class BenchSummary:
    """Aggregate figures over all tasks of a bench."""

    n_tasks: int
    n_correct: int
    fast_p: dict[str, float] = field(default_factory=dict)      # "fast_1.5" -> fraction
    n_partial: int = 0                                          # correct, but torch computes a part
    fast_p_full: dict[str, float] = field(default_factory=dict)     # full kernels only (of all tasks)
    fast_p_partial: dict[str, float] = field(default_factory=dict)  # partial candidates only
    geomean_eager: float | None = None
    geomean_compile: float | None = None
    meaningful: bool = True                                     # False if any timing was not

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def discover(tasks_dir: str | Path, candidates_dir: str | Path, dsl: str, backend: str,
             candidate_stem: str | None = None) -> list[BenchItem]:
    """Pair every task under ``tasks_dir`` with its candidate under ``candidates_dir``.

    In a folder layout the candidate is ``NAME/{dsl}_{backend}.py`` unless ``candidate_stem``
    names another file: ``triton_cuda`` runs CUDA-targeted Triton kernels under the interpreter
    with ``--backend cpu``.
    """
    stem = candidate_stem or f"{dsl}_{backend}"
    tdir, cdir = Path(tasks_dir), Path(candidates_dir)
    for d, what in ((tdir, "tasks"), (cdir, "candidates")):
        if not d.is_dir():
            raise ConfigError(f"{what} directory {d} does not exist")
    items = []
    for p in sorted(tdir.iterdir()):
        if p.is_file() and p.suffix == ".py" and not p.name.startswith(("_", ".")):
            name, task = p.stem, p
        elif p.is_dir() and (p / "task.py").is_file():
            name, task = p.name, p / "task.py"
        else:
            continue
        cand = None
        for c in (cdir / f"{name}.py", cdir / name / f"{stem}.py"):
            if c.is_file() and c.resolve() != task.resolve():
                cand = c
                break
        items.append(BenchItem(name, task, cand))
    if not items:
        raise ConfigError(f"no tasks under {tdir}: expected NAME.py or NAME/task.py")
    return items


def _progress(total: int, desc: str = "bench") -> Callable[[str], None]:
    """A tick function: tqdm when importable, else a counter on stderr."""
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="task", desc=desc, file=sys.stderr)

        def tick(label: str) -> None:
            bar.set_postfix_str(label)
            bar.update(1)
            if bar.n >= total:
                bar.close()

        return tick
    except ImportError:
        done = [0]

        def tick_plain(label: str) -> None:
            done[0] += 1
            print(f"{desc} [{done[0]}/{total}] {label}", file=sys.stderr, flush=True)

        return tick_plain


def run_bench(items: list[BenchItem], dsl: str, backend: str, options: VerifyOptions,
              executor: Executor | None = None, progress: bool = True,
              on_result: Callable[[BenchItem], None] | None = None) -> list[BenchItem]:
    """Verify every item that has a candidate; fills ``result`` or ``error`` in place.

    With a parallel executor and timing on, the work is split in two phases so that no timed run
    shares the device with another candidate's work: (1) every candidate is checked for
    correctness in parallel, timing off -- this also fills the build, Triton and inductor caches;
    (2) the correct ones are verified again, one at a time, with timing (caches warm).
    ``on_result`` is called after every verdict (e.g. to save partial results).
    """
    executor = executor or LocalExecutor(jobs=1)
    runnable = [it for it in items if it.candidate is not None and not it.reused]
    if backend == "cuda" and options.timing and isinstance(executor, LocalExecutor):
        # the roofline's task figures, worked out in this process's helper before each task is timed
        for it in runnable:
            task_figures.prefetch_path(it.task, options.scale)
    two_phase = options.timing and getattr(executor, "jobs", 1) > 1
    first = replace(options, timing=False) if two_phase else options
    _run_phase(runnable, dsl, backend, first, executor, progress, "verify" if two_phase else "bench", on_result)
    if two_phase:
        correct = [it for it in runnable if it.result is not None and it.result.ok]
        _run_phase(correct, dsl, backend, options, LocalExecutor(jobs=1), progress, "time", on_result)
    return items


def _run_phase(items: list[BenchItem], dsl: str, backend: str, options: VerifyOptions,
               executor: Executor, progress: bool, label: str,
               on_result: Callable[[BenchItem], None] | None = None) -> None:
    """Run one job per item through ``executor``; a later phase's verdict replaces an earlier one."""
    jobs = [make_job(str(it.task), str(it.candidate), dsl=dsl, backend=backend, options=options.to_dict())
            for it in items]
    for it in items:
        it.sources = it.fingerprint()   # what this phase verifies (a resumed run compares it)
    tick = _progress(len(jobs), label) if progress and jobs else (lambda label: None)
    for i, r in executor.imap(jobs):
        it = items[i]
        if isinstance(r, AkgError):
            it.error = str(r)
        else:
            it.result = r
        tick(f"{it.name}: {it.status}")
        if on_result is not None:
            on_result(it)


def _geomean(values: list[float]) -> float | None:
    vals = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def summarize(items: list[BenchItem]) -> BenchSummary:
    """fast_p for p in :data:`FAST_P` over all tasks and geometric-mean speedups over correct ones."""
    n = len(items)
    correct = [it for it in items if it.result is not None and it.result.ok]
    partial = [it for it in correct if it.result is not None and it.result.partial]
    s = BenchSummary(n_tasks=n, n_correct=len(correct), n_partial=len(partial))

    def fast(group: list[BenchItem], p: float) -> float:
        hits = sum(1 for it in group if (it.speedup() or 0.0) > p or (p == 0.0 and it.speedup() is None))
        return hits / n if n else 0.0

    full = [it for it in correct if it not in partial]
    for p in FAST_P:
        s.fast_p[f"fast_{p:g}"] = fast(correct, p)
        s.fast_p_full[f"fast_{p:g}"] = fast(full, p)
        s.fast_p_partial[f"fast_{p:g}"] = fast(partial, p)
    s.geomean_eager = _geomean([it.speedup("eager") or 0.0 for it in correct])
    s.geomean_compile = _geomean([it.speedup("compile") or 0.0 for it in correct])
    s.meaningful = all(it.result.timings is None or it.result.timings.meaningful for it in correct)
    return s


def _fmt(v: float | None, spec: str = ".3g", suffix: str = "") -> str:
    return "-" if v is None else f"{v:{spec}}{suffix}"


def table_rows(items: list[BenchItem]) -> list[list[str]]:
    """Rows of the per-task table (header first)."""
    rows = [["task", "status", "cand ms", "eager ms", "compile ms", "x eager", "x compile", "% roofline", "notes"]]
    for it in items:
        r = it.result
        t = r.timings if r else None
        notes = []
        if r is not None:
            if r.guard_violations:
                notes.append("guards: " + ",".join(r.violation_names()))
            if r.review:
                notes.append("review")
            if r.partial:
                notes.append("partial: " + ",".join(r.partial_ops))
            if t is not None and not t.meaningful:
                notes.append("timing not meaningful")
        if it.error:
            notes.append(it.error.splitlines()[0][:80])
        rows.append([it.name, it.status, _fmt(t and t.candidate_ms), _fmt(t and t.eager_ms),
                     _fmt(t and t.compile_ms), _fmt(it.speedup("eager"), ".2f", "x"),
                     _fmt(it.speedup("compile"), ".2f", "x"),
                     _fmt(t.roofline_fraction * 100 if t and t.roofline_fraction else None, ".1f"),
                     "; ".join(notes)])
    return rows


def format_table(rows: list[list[str]]) -> str:
    """Plain-text table with aligned columns."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_summary(s: BenchSummary) -> str:
    """The summary block printed under the table."""
    fp = "  ".join(f"{k}={v:.2f}" for k, v in s.fast_p.items())
    full = "  ".join(f"{k}={v:.2f}" for k, v in s.fast_p_full.items())
    part = "  ".join(f"{k}={v:.2f}" for k, v in s.fast_p_partial.items())
    lines = [f"{s.n_correct}/{s.n_tasks} correct   {fp}",
             f"  full kernels:    {s.n_correct - s.n_partial}/{s.n_tasks}   {full}",
             f"  partial (torch computes a part): {s.n_partial}/{s.n_tasks}   {part}",
             f"geomean speedup over correct tasks: vs eager {_fmt(s.geomean_eager, '.3f', 'x')}, "
             f"vs torch.compile {_fmt(s.geomean_compile, '.3f', 'x')}"]
    if not s.meaningful:
        lines.append("note: some timings are not meaningful (Triton interpreter): speedups are not performance")
    return "\n".join(lines)
