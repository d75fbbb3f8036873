"""What a search optimises: the fitness of a candidate, and the evaluators that measure it.

Fitness is the verifier's speedup over PyTorch eager of a *correct* kernel, with its confidence
interval (eager and candidate are timed interleaved in one child, so the ratio survives load that
drifts between children). Candidates are *ranked* by the interval's lower bound (:attr:`Fitness.score`):
a noisy measurement cannot win on a lucky median, and one kernel displaces another only when it is
:func:`clearly_faster`. An incorrect kernel (any status but ``correct``) has fitness 0 and never
survives as an elite. Where the verifier says its timings mean nothing (the Triton interpreter on
CPU) or did not time at all, a correct kernel has fitness 1.0: the search then still separates
correct from incorrect, not fast from slow.

An evaluator maps a batch of sources to their fitnesses in order. :class:`VerifierEvaluator` sends
the batch through an executor (local processes by default) so the candidates verify in parallel;
tests and other callers may pass any function ``(list[str]) -> list[Fitness]`` instead.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

# Fitness of a correct kernel whose timings are not meaningful or absent (see module docstring).
CORRECT_UNTIMED = 1.0

Evaluate = Callable[[list[str]], list["Fitness"]]


@dataclass
class Fitness:
    """How good one candidate is: its fitness value and the verdict it came from."""

    value: float                          # speedup vs eager if correct and timed; 1.0 / 0.0 otherwise
    status: str = "correct"               # the verifier's status (see akg_rag.verify.result)
    feedback: str = ""                    # the verifier's feedback (what a rewrite should fix)
    timings: dict[str, Any] | None = None  # Timings.to_dict() of the verdict, when timed
    meaningful: bool = True               # False when the timings say nothing about speed
    review: bool = False                  # the verifier flagged the speedup as implausible (> 10x)
    low: float | None = None              # confidence interval of the speedup (None: not timed)
    high: float | None = None

    @property
    def score(self) -> float:
        """What candidates are ranked by: the speedup's lower bound (the value without an interval)."""
        if not self.ok:
            return 0.0
        return self.low if self.meaningful and self.low is not None else self.value

    @property
    def ok(self) -> bool:
        """True for a correct candidate."""
        return self.status == "correct"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Fitness":
        """Inverse of :meth:`to_dict`."""
        return cls(**d)

    @classmethod
    def from_result(cls, result: Any) -> "Fitness":
        """Fitness of a ``VerifyResult`` (see the module docstring for the rule)."""
        t = result.timings
        timings = t.to_dict() if t is not None else None
        if not result.ok:
            return cls(0.0, result.status, result.feedback, timings, bool(t and t.meaningful))
        if t is None or not t.meaningful or not t.speedup_eager:
            return cls(CORRECT_UNTIMED, result.status, result.feedback, timings, False)
        low, high = getattr(t, "speedup_eager_low", None), getattr(t, "speedup_eager_high", None)
        return cls(float(t.speedup_eager), result.status, result.feedback, timings, True, bool(result.review),
                   low, high)

    def describe(self) -> str:
        """One line for feedback and progress: status, speedup and the candidate's time."""
        if not self.ok:
            return f"{self.status} (fitness 0)"
        if not self.meaningful:
            return "correct (timings not meaningful: fitness 1.0)"
        ms = (self.timings or {}).get("candidate_ms")
        flag = "; flagged for review: check the baseline" if self.review else ""
        return f"correct, {speedup_words(self.value, self.low, self.high)}" + (
            f" ({ms:.4g} ms{flag})" if ms is not None else "")


def speedup_words(value: float | None, low: float | None, high: float | None, label: str = "eager") -> str:
    """``1.8x vs eager [1.7-1.9]``, ``no measurable difference vs eager`` or ``0.45x vs eager (slower)``."""
    if value is None:
        return f"no speedup vs {label} measured"
    if low is None or high is None:
        return f"{value:.3g}x vs {label}" + (" (slower)" if value < 1.0 else "")
    if low <= 1.0 <= high:
        return f"no measurable difference vs {label} ({low:.3g}-{high:.3g}x)"
    return f"{value:.3g}x vs {label} [{low:.3g}-{high:.3g}]" + (" (slower)" if high < 1.0 else "")


def speedup_interval(timings: dict[str, Any] | None) -> tuple[float, float, float] | None:
    """``(estimate, low, high)`` of the speedup vs eager in a timings dict; a point without an interval."""
    t = timings or {}
    s = t.get("speedup_eager")
    if s is None or t.get("meaningful") is False:
        return None
    low, high = t.get("speedup_eager_low"), t.get("speedup_eager_high")
    return (float(s), float(low if low is not None else s), float(high if high is not None else s))


def clearly_faster(new: dict[str, Any] | None, old: dict[str, Any] | None, min_gain: float = 0.0) -> bool:
    """Whether timings ``new`` beat ``old`` beyond doubt: new's lower bound above old's upper bound
    and above old's estimate by ``min_gain`` (0.02 = 2 %). Without intervals, the speedups are compared
    as points (older results); without speedups, the candidate medians."""
    a, b = speedup_interval(new), speedup_interval(old)
    if a is not None and b is not None:
        return a[1] > b[2] and a[1] > b[0] * (1.0 + min_gain)
    new_ms, old_ms = (new or {}).get("candidate_ms"), (old or {}).get("candidate_ms")
    if new_ms is None:
        return False
    return old_ms is None or new_ms < old_ms * (1.0 - min_gain)


class MapExecutor(Protocol):
    """What the search needs of an executor: verify job dicts, results in job order."""

    def map(self, jobs: list[dict[str, Any]]) -> list[Any]: ...


@dataclass
class VerifierEvaluator:
    """Verifies a batch of candidate sources for one task and target through an executor."""

    task: str | Path
    dsl: str
    backend: str
    options: Any = None                  # VerifyOptions (defaults when None)
    executor: MapExecutor | None = None  # LocalExecutor(jobs=1) when None

    def __call__(self, sources: list[str]) -> list[Fitness]:
        """Fitness of each source, in order; a job's ``AkgError`` (bad task or target) raises."""
        from akg_rag.verify.executor import LocalExecutor, make_job
        from akg_rag.verify.options import VerifyOptions

        if not sources:
            return []
        options = self.options if self.options is not None else VerifyOptions()
        executor = self.executor if self.executor is not None else LocalExecutor(jobs=1)
        jobs = [make_job(str(self.task), dsl=self.dsl, backend=self.backend, candidate_source=src,
                         options=options.to_dict()) for src in sources]
        return [Fitness.from_result(r) for r in executor.map(jobs)]
