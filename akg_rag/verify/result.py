"""The verifier's verdict: :class:`VerifyResult` and the :class:`Timings` it carries.

Both are plain dataclasses that round-trip through JSON (``to_dict`` / ``from_dict``), because
verdicts cross process and machine boundaries (the sandboxed child, the executor, a GPU box).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, get_args

Status = Literal[
    "compile_error",    # the candidate (or its extension / Triton kernel) does not build or import
    "runtime_error",    # it raised while constructing ModelNew or running forward
    "timeout",          # it ran past the wall-clock limit and was killed
    "crashed",          # the child died (segfault, abort, memory limit) without a verdict
    "guard_violation",  # it broke a rule of the protocol (see akg_rag.verify.guards)
    "incorrect",        # wrong numbers, shapes or dtypes
    "correct",          # matched the reference on every trial and input set
]
STATUSES: tuple[str, ...] = get_args(Status)


@dataclass
class Timings:
    """Median times (milliseconds) of the candidate and its baselines, measured in one process."""

    candidate_ms: float | None = None
    eager_ms: float | None = None
    compile_ms: float | None = None          # torch.compile of the reference; None when unavailable
    speedup_eager: float | None = None       # median of per-block eager/candidate ratios (~ eager_ms / candidate_ms)
    speedup_compile: float | None = None     # median of per-block compile/candidate ratios (compile_method)
    meaningful: bool = True                  # False under the Triton interpreter (correctness only)
    achieved_gbps: float | None = None       # minimum bytes moved / candidate time, GB/s (1e9)
    achieved_tflops: float | None = None     # FLOPs / candidate time, TFLOP/s (1e12)
    roofline_fraction: float | None = None   # roofline floor time / candidate time; None without peaks
    device: str = ""                         # e.g. "NVIDIA H200" or "cpu (x86_64, 2 threads)"
    baseline: str = ""                       # e.g. "torch 2.13.0 eager; torch.compile (inductor)"
    compile_status: str = ""                 # "ok", "disabled" or "unavailable: <reason>"
    runs: int = 0                            # timed runs per measured function
    warmup: int = 0                          # untimed warm-up runs per measured function
    # How sure the numbers are. The candidate and eager are timed interleaved in blocks; the
    # speedups are the median of per-block ratios with a distribution-free interval at `confidence`.
    method: str = ""                         # clock of the headline numbers: perf_counter | cuda_event
    queued: bool | None = None               # a block's runs issued back to back, one wait after the
                                             # block (CUDA); False: each run waited for; None: older rows
    candidate_iqr_ms: float | None = None    # spread of the candidate's runs (interquartile range)
    eager_iqr_ms: float | None = None
    speedup_eager_low: float | None = None   # interval of speedup_eager
    speedup_eager_high: float | None = None
    speedup_compile_low: float | None = None  # interval of speedup_compile (isolated: wider)
    speedup_compile_high: float | None = None
    confidence: float | None = None          # achieved two-sided confidence of the eager interval
    blocks: int = 0                          # interleaved blocks (independent ratios) behind it
    verdict_eager: str = ""                  # faster | slower | no measurable difference
    verdict_compile: str = ""
    eager_isolated_ms: float | None = None   # eager timed alone, before any candidate code loaded
    compile_method: str = ""                 # "interleaved" with the candidate, or "isolated" (timed before it)
    compile_isolated_ms: float | None = None  # torch.compile timed alone, before the candidate (interleaved runs)
    block_ratios: list[float] = field(default_factory=list)  # eager / candidate median of each block
    first_call_ms: float | None = None       # first call on new values (fresh-input check's last set), timed alone
    # CUDA graph replays of the same pair (GPU calls under 50 us, where launch overhead dominates)
    graph_candidate_ms: float | None = None
    graph_eager_ms: float | None = None
    graph_speedup_eager: float | None = None
    graph_speedup_eager_low: float | None = None
    graph_speedup_eager_high: float | None = None
    graph_method: str = ""                   # "cuda_graph" when graph timings are present
    graph_error: str = ""                    # why graph capture failed, when it was tried

    def speedup_text(self, baseline: str = "eager") -> str:
        """``1.83x vs eager [1.79-1.88]``, or ``no measurable difference vs eager`` when the interval
        straddles 1.0; "" when unknown."""
        point = self.speedup_eager if baseline == "eager" else self.speedup_compile
        low = self.speedup_eager_low if baseline == "eager" else self.speedup_compile_low
        high = self.speedup_eager_high if baseline == "eager" else self.speedup_compile_high
        if point is None:
            return ""
        label = "torch.compile" if baseline == "compile" else "eager"
        if low is None or high is None:
            return f"{point:.3g}x vs {label}"
        if low <= 1.0 <= high:
            return f"no measurable difference vs {label} ({low:.3g}-{high:.3g}x)"
        return f"{point:.3g}x vs {label} [{low:.3g}-{high:.3g}]"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Timings":
        """Inverse of :meth:`to_dict`; unknown keys are ignored (newer writers, older readers)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class VerifyResult:
    """What the verifier concluded about one candidate for one task and target."""

    status: str
    feedback: str = ""                                       # what a coder needs to act on
    guard_violations: list[dict[str, str]] = field(default_factory=list)  # [{name, detail}]
    mismatch: dict[str, Any] | None = None                   # first failing comparison
    timings: Timings | None = None
    review: bool = False                                     # speedup above the review threshold
    partial: bool = False                                    # torch still computes part of the work
    partial_ops: list[str] = field(default_factory=list)     # which aten ops the candidate called
    builds: list[dict[str, Any]] = field(default_factory=list)  # [{name, cached, seconds}]
    profile: list[dict[str, Any]] = field(default_factory=list)  # [{name, time_us, count}] per call
    log: str = ""                                            # tail of the child's stdout/stderr
    dsl: str = ""
    backend: str = ""
    task: str = ""                                           # task path (or "<source>")
    candidate: str = ""                                      # candidate path (or "<source>")
    wall_s: float = 0.0                                      # whole verification, seconds
    phases: dict[str, float] = field(default_factory=dict)   # judge's seconds per step (where wall_s went)
    isolation: str = ""                                      # OS sandbox of the candidate process

    @property
    def ok(self) -> bool:
        """True only for a correct candidate (guard violations are never ok)."""
        return self.status == "correct"

    def violation_names(self) -> list[str]:
        """Names of the guards this candidate violated, in the order they were found."""
        return [v["name"] for v in self.guard_violations]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; ``timings`` becomes a nested dict (or None)."""
        d = asdict(self)
        d["timings"] = self.timings.to_dict() if self.timings else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "VerifyResult":
        """Inverse of :meth:`to_dict`; raises ``ValueError`` on an unknown status."""
        if d.get("status") not in STATUSES:
            raise ValueError(f"unknown verify status {d.get('status')!r}; allowed: {', '.join(STATUSES)}")
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        if kw.get("timings") is not None:
            kw["timings"] = Timings.from_dict(kw["timings"])
        return cls(**kw)

    def summary(self) -> str:
        """One line: status, violated guards and the speedup when known."""
        parts = [self.status]
        if self.guard_violations:
            parts.append("guards: " + ", ".join(self.violation_names()))
        t = self.timings
        if t and t.candidate_ms is not None:
            s = f"{t.candidate_ms:.4g} ms"
            if t.candidate_iqr_ms is not None:
                s += f" (IQR {t.candidate_iqr_ms:.2g})"
            if t.speedup_eager is not None:
                s += ", " + t.speedup_text("eager")
            if not t.meaningful:
                s += " (not meaningful)"
            parts.append(s)
        return "; ".join(parts)
