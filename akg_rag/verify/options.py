"""How one verification runs: :class:`VerifyOptions` (trials, limits, timing, scale, device)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from akg_rag.errors import ConfigError


@dataclass
class VerifyOptions:
    """Settings of one verification; every field has a default that suits a CPU or a single GPU."""

    trials: int = 5                    # correctness trials, each with fresh random inputs
    timeout_s: float = 300.0           # wall clock for the whole child (build + checks + timing)
    memory_mb: int | None = None       # child memory cap; None = 16384 on CPU, 65536 RSS on GPU
    timing: bool = True                # measure candidate and baselines after correctness
    warmup: int | None = None          # untimed runs before timing; None = 10 on GPU, 2 on CPU
    runs: int | None = None            # timed runs; None = as many as fit timing_budget_s
    timing_budget_s: float = 1.0       # per timed function when runs is None (seconds)
    compile_baseline: bool = True      # also time torch.compile of the reference
    seed: int = 0                      # seed of weights and of trial t's inputs (seed + t)
    scale: str | None = None           # AKG_TASK_SCALE in the child: "small", "full" or None
    device: str | None = None          # torch device for cuda backends, e.g. "cuda:1"
    cache_dir: str | None = None       # root of the per-candidate extension build cache
    static_guards: bool = True         # reject on source-level guard hits before running
    review_speedup: float = 10.0       # speedups above this are flagged review=True
    cpu_threads: int | None = None     # OMP_NUM_THREADS and torch threads of the child (CPU)
    timing_lock: str | None = None     # file locked during timed runs, shared by concurrent children
    profile: bool = False              # after timing, record torch.profiler's kernel list of one call
    atol: float | None = None          # override the dtype's default tolerance
    rtol: float | None = None

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ConfigError(f"trials must be >= 1, got {self.trials}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be positive, got {self.timeout_s}")
        if self.scale not in (None, "small", "full"):
            raise ConfigError(f"scale must be 'small', 'full' or unset, got {self.scale!r}")
        if self.memory_mb is not None and self.memory_mb < 256:
            raise ConfigError(f"memory_mb={self.memory_mb} is too small to import torch; use >= 2048")
        if self.runs is not None and self.runs < 1:
            raise ConfigError(f"runs must be >= 1, got {self.runs}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "VerifyOptions":
        """Build options from a dict, rejecting unknown keys with the allowed ones listed."""
        d = dict(d or {})
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ConfigError(f"unknown verify option(s) {unknown}; allowed: {', '.join(sorted(names))}")
        return cls(**d)
