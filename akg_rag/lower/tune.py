"""``tune_task``: lower a task, then search its kernels' tunables with the island search.

1. The task is lowered (at the verification scale) reading the tuning store: a kernel whose key
   (:mod:`akg_rag.lower.tuning_key`) is stored starts from the stored tunables.
2. The search space comes from the kernels' sketches (:mod:`akg_rag.lower.tune_space`): legal
   values only, none that cannot change what runs; tunables with a single value stay put.
3. :func:`akg_rag.search.run_search` evolves the candidate on islands. Every candidate goes
   through the real verifier (correctness trials, then eager and candidate timed interleaved) and
   is ranked by the lower bound of its speedup interval; an illegal joint configuration is
   rejected before verification, and a wrong one gets fitness 0 and can never win.
4. The tune stops after ``generations``, when ``budget_s`` of wall clock is spent, or when
   ``patience`` generations in a row find nothing new to verify. The best correct candidate goes
   to ``--out`` (``best.py``, with the tuning log: :mod:`akg_rag.lower.tune_log`) and, when its
   timing means something, each kernel's tunables go to the tuning store with the measured time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from akg_rag.errors import ConfigError
from akg_rag.lower.tune_log import TuneLog
from akg_rag.lower.tune_space import Knob, kernel_knobs, violation
from akg_rag.lower.tuned import StoredTuning, key_of, params_of
from akg_rag.lower.tuning_store import TuningEntry, TuningStore, now
from akg_rag.search.fitness import Fitness, VerifierEvaluator
from akg_rag.search.islands import source_key
from akg_rag.search.tunables import tunable_values

Progress = Callable[[str], None]
ILLEGAL = "illegal"      # status of a configuration rejected before verification


@dataclass
class TuneSettings:
    """How long and how wide the search runs (see :func:`akg_rag.search.run_search`)."""

    islands: int = 2
    population: int = 4
    generations: int | None = None   # None: 4 without a budget, until the budget ends with one
    migrate_every: int = 2
    elite: int = 1
    seed: int = 0
    jobs: int = 1                    # verifications at once (1 per device for timing)
    budget_s: float | None = None    # wall clock for the search; the seed is always verified
    patience: int = 2                # generations in a row with nothing new to verify end it

    def rounds(self) -> int:
        if self.generations is not None:
            return self.generations
        return 1000 if self.budget_s is not None else 4


class _Stop(Exception):
    """Ends the search early (budget spent, or nothing new left to try)."""


@contextlib.contextmanager
def task_scale(scale: str | None) -> Iterator[None]:
    """``AKG_TASK_SCALE=scale`` for the block (the candidate is lowered at the verified shapes)."""
    before = os.environ.get("AKG_TASK_SCALE")
    if scale is not None:
        os.environ["AKG_TASK_SCALE"] = scale
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("AKG_TASK_SCALE", None)
        else:
            os.environ["AKG_TASK_SCALE"] = before


class _Journal:
    """The search's evaluator: journal cache, legality check, budget, then the verifier."""

    def __init__(self, verify: Callable[[list[str]], list[Fitness]], names: set[str], knobs: list[Knob],
                 check: Callable[[dict[str, int]], str | None], log: TuneLog, cache: dict[str, Fitness],
                 deadline: float | None, jobs: int) -> None:
        self.verify, self.names, self.knobs, self.check, self.log = verify, names, knobs, check, log
        self.cache, self.deadline, self.jobs = cache, deadline, max(1, jobs)
        self.verified = self.illegal = self.reused = 0
        self.best: tuple[str, Fitness] | None = None

    def __call__(self, sources: list[str]) -> list[Fitness]:
        out: dict[int, Fitness] = {}
        pending: list[tuple[int, str]] = []
        for i, src in enumerate(sources):
            key = source_key(src)
            if key in self.cache:
                out[i] = self.cache[key]
                self.reused += 1
                self.consider(src, out[i])
            elif (reason := self.check(tunable_values(src, self.names))) is not None:
                out[i] = Fitness(0.0, ILLEGAL, reason, meaningful=False)
                self.illegal += 1
                self._note(src, out[i], 0.0)
            else:
                pending.append((i, src))
        for start in range(0, len(pending), self.jobs):
            if self.deadline is not None and time.monotonic() > self.deadline and self.verified + self.reused:
                raise _Stop("budget")
            chunk = pending[start:start + self.jobs]
            t0 = time.monotonic()
            results = self.verify([src for _, src in chunk])
            wall = (time.monotonic() - t0) / len(chunk)
            for (i, src), fit in zip(chunk, results):
                out[i] = fit
                self.verified += 1
                self._note(src, fit, wall)
        return [out[i] for i in range(len(sources))]

    def _note(self, src: str, fit: Fitness, wall: float) -> None:
        """Journal a new verdict at once (a kill loses nothing) and keep the best up to date."""
        key = source_key(src)
        self.cache[key] = fit
        self.log.record(key, tunable_values(src, self.names), fit, wall)
        self.consider(src, fit)

    def consider(self, src: str, fit: Fitness) -> None:
        """Keep ``src`` as the best when it is correct and its speedup's lower bound (then its
        estimate) is higher than the best's; it is written to best.py at once."""
        if not fit.ok:
            return
        if self.best is None or (fit.score, fit.value) > (self.best[1].score, self.best[1].value):
            self.best = (src, fit)
            self.log.write_best(src)


def tune_task(task: str | Path, dsl: str, backend: str, out: str | Path, *, settings: TuneSettings | None = None,
              options: Any = None, store: TuningStore | None = None, use_store: bool = True,
              executor: Any = None, progress: Progress | None = None, fresh: bool = False,
              seed_source: str | None = None, verify_backend: str | None = None,
              cores: str = "generated") -> dict[str, Any]:
    """Lower ``task`` (core mode ``cores``), tune its kernels and return the tuning log (also written
    to ``out``).

    ``options`` are the ``VerifyOptions`` of every verification (default: no torch.compile
    baseline); ``store`` the tuning store (default file when None; ``use_store=False`` neither reads
    nor writes one); ``executor`` verifies batches (``LocalExecutor(jobs)`` by default). A tune
    directory holding an earlier tune of the same task and target is resumed unless ``fresh``.
    ``seed_source`` starts from an edited copy of the lowered candidate instead (same kernels and
    tunable names); raises ``ConfigError`` when it lacks one of them. ``verify_backend`` verifies
    on another backend than the one lowered for (``cpu``: Triton under its interpreter, correctness
    only, so nothing is stored).
    """
    from akg_rag.lower.assemble import lower_task
    from akg_rag.lower.tuning_key import device_name
    from akg_rag.search import run_search
    from akg_rag.verify.executor import LocalExecutor
    from akg_rag.verify.options import VerifyOptions

    s = settings or TuneSettings()
    say = progress or (lambda line: None)
    options = options if options is not None else VerifyOptions(compile_baseline=False)
    device = device_name(backend, getattr(options, "device", None))
    store = (store or TuningStore()) if use_store else None
    started = time.monotonic()
    with task_scale(options.scale):
        source, report = lower_task(task, dsl, backend, cores=cores,
                                    tuning=StoredTuning(store, device) if store is not None else None)
    if seed_source is not None:
        missing = sorted(n for k in report.kernels for n in k.tunables if n not in tunable_values(seed_source))
        if missing:
            raise ConfigError(f"the seed candidate lacks the lowered kernels' tunables {missing}")
        source = seed_source
    assert source is not None
    log = TuneLog(out)
    ident = {"task": str(task), "task_hash": hashlib.sha256(Path(task).read_bytes()).hexdigest()[:16],
             "dsl": dsl, "backend": backend, "device": device, "scale": options.scale}
    source, resumed = _start(log, ident, source, fresh, explicit=seed_source is not None)
    log.write_report(report.to_dict())
    knobs, sketches = _space(report, source, dsl)
    movable = [k for k in knobs if len(k.values) > 1]
    names = {k.name for k in knobs}
    sizes = {k.name: k.sizes for k in report.kernels}
    cache = log.verdicts() if resumed else {}
    verify = VerifierEvaluator(task, dsl, verify_backend or backend, options, executor or LocalExecutor(jobs=s.jobs))
    journal = _Journal(verify, names, knobs, lambda cfg: violation(knobs, cfg, sketches, sizes, dsl), log, cache,
                       started + s.budget_s if s.budget_s is not None else None, s.jobs)
    result: dict[str, Any] = {**ident, "out": str(out), "resumed": resumed, "settings": asdict(s),
                              "options": options.to_dict(), "lowering": {k.name: k.tuning for k in report.kernels},
                              "knobs": [{**asdict(k), "values": list(k.values)} for k in knobs],
                              "generations": [], "stopped": "", "store": {}}
    say(f"tune {Path(task).name} ({dsl}/{backend}) on {device}: {len(movable)} of {len(knobs)} tunable(s) move"
        + (" (resumed: %d verdict(s) on record)" % len(cache) if resumed else ""))
    for k in report.kernels:
        if k.tuning.get("source") == "store":
            from akg_rag.lower.tuned import describe

            say(f"  {k.name}: {describe(k.tuning)}")
    for k in knobs:
        say(f"  {k.name}: {list(k.values)} ({k.why})")
    result["stopped"] = "running"
    log.write_log(_finish(result, journal, source, names, started))   # from now on, a restart resumes
    idle = [0]

    def on_generation(rec: Any) -> None:
        line = rec.line() + _best_words(journal, names)
        say(line)
        result["generations"].append({"generation": rec.generation, "line": line, "evaluated": rec.evaluated,
                                      "best_fitness": rec.best_fitness, "wall_s": round(rec.wall_s, 3)})
        result["stopped"] = "running"
        log.write_log(_finish(result, journal, source, names, started))
        idle[0] = idle[0] + 1 if rec.evaluated == 0 else 0
        if idle[0] >= s.patience:
            raise _Stop("converged")

    stopped = "generations"
    try:
        if movable:
            run_search(source, task, dsl=dsl, backend=backend, islands=s.islands, population=s.population,
                       generations=s.rounds(), migrate_every=s.migrate_every, elite=s.elite,
                       evaluate=journal, seed=s.seed, options=options, progress=on_generation,
                       domains={k.name: list(k.values) for k in movable}, names={k.name for k in movable},
                       filter_moves=False)
        else:
            stopped = "nothing to tune"
            journal([source])
    except _Stop as e:
        stopped = str(e)
    except KeyboardInterrupt:
        result["stopped"] = "interrupted"
        log.write_log(_finish(result, journal, source, names, started))
        raise
    result["stopped"] = stopped
    if store is not None:
        result["store"] = _store_best(store, report, journal, names, dsl, backend, device, str(task))
    final = _finish(result, journal, source, names, started)
    log.write_log(final)
    say(_summary(final))
    return final


def _start(log: TuneLog, ident: dict[str, Any], source: str, fresh: bool, explicit: bool) -> tuple[str, bool]:
    """``(seed source, resumed)``: the earlier tune's seed when ``log`` holds a tune of the same
    task, target, device and scale (and, for an ``explicit`` seed, the same seed); otherwise the
    directory is cleared and ``source`` becomes the seed."""
    prev = log.previous() or {}
    saved = log.read_seed()
    if (not fresh and saved is not None and all(prev.get(k) == v for k, v in ident.items())
            and (not explicit or saved == source)):
        return saved, True
    log.clear()
    log.write_seed(source)
    return source, False


def _space(report: Any, source: str, dsl: str) -> tuple[list[Knob], dict[str, Any]]:
    """Every kernel's knobs at the seed's values, and the kernels' parsed sketches."""
    from akg_rag.sketch import check_sketch

    values = tunable_values(source)
    knobs: list[Knob] = []
    sketches = {}
    for k in report.kernels:
        sketches[k.name] = check_sketch(k.sketch)
        current = {n: values.get(n, v) for n, v in k.tunables.items()}
        knobs += kernel_knobs(k.name, sketches[k.name], current, k.sizes, dsl)
    return knobs, sketches


def _best_words(journal: _Journal, names: set[str]) -> str:
    if journal.best is None:
        return "; no correct candidate yet"
    src, fit = journal.best
    ms = (fit.timings or {}).get("candidate_ms")
    cfg = ", ".join(f"{k}={v}" for k, v in tunable_values(src, names).items())
    return f"; best {cfg}" + (f" ({ms:.4g} ms)" if fit.meaningful and isinstance(ms, (int, float)) else "")


def _finish(result: dict[str, Any], journal: _Journal, seed: str, names: set[str], started: float) -> dict[str, Any]:
    """The log with the seed's and the best's verdicts and the counts filled in."""
    seed_fit = journal.cache.get(source_key(seed))
    best = journal.best
    out = dict(result)
    out["seed"] = {"tunables": tunable_values(seed, names), "fitness": seed_fit.to_dict() if seed_fit else None}
    out["best"] = None if best is None else {"key": source_key(best[0]), "tunables": tunable_values(best[0], names),
                                             "fitness": best[1].to_dict()}
    ratio = None
    if best is not None and seed_fit is not None and seed_fit.ok and seed_fit.meaningful and best[1].meaningful:
        ratio = best[1].value / seed_fit.value if seed_fit.value else None
    out.update(speedup_over_seed=ratio, verified=journal.verified, reused=journal.reused,
               illegal=journal.illegal, elapsed_s=round(time.monotonic() - started, 1))
    return out


def _store_best(store: TuningStore, report: Any, journal: _Journal, names: set[str], dsl: str, backend: str,
                device: str, task: str) -> dict[str, Any]:
    """File the best candidate's tunables, kernel by kernel; only a correct, meaningfully timed one."""
    from akg_rag.sketch import check_sketch

    info: dict[str, Any] = {"path": str(store.path), "written": []}
    if journal.best is None:
        info["note"] = "no correct candidate: nothing stored"
        return info
    src, fit = journal.best
    if not fit.meaningful:
        info["note"] = "timings not meaningful here (e.g. the Triton interpreter): nothing stored"
        return info
    values = tunable_values(src)
    ms = (fit.timings or {}).get("candidate_ms")
    for k in report.kernels:
        params = params_of(k.name, {n: values.get(n, v) for n, v in k.tunables.items()})
        if not params:
            continue
        key = key_of(k.sketch, check_sketch(k.sketch), k.sizes, dsl, backend, device)
        store.put(key, TuningEntry(params, ms, now(), k.kind, dsl, backend, task, fit.value))
        info["written"].append({"kernel": k.name, "key": key.text(), "tunables": params})
    return info


def _summary(log: dict[str, Any]) -> str:
    best = log.get("best")
    if best is None:
        return f"tune stopped ({log['stopped']}): no correct candidate"
    cfg = ", ".join(f"{k}={v}" for k, v in best["tunables"].items()) or "no tunables"
    ratio = log.get("speedup_over_seed")
    gain = f"; {ratio:.3g}x the starting config" if ratio else ""
    store = log.get("store") or {}
    stored = f"{len(store.get('written') or [])} kernel config(s) stored" if store else "no store"
    if store.get("note"):
        stored += f" ({store['note']})"
    return (f"tune stopped ({log['stopped']}) after {log['verified']} verification(s), "
            f"{log['elapsed_s']} s: best {cfg}, {Fitness.from_dict(best['fitness']).describe()}{gain}; {stored}")
