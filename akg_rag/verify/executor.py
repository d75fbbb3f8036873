"""Executors: run many verifications, with jobs and results crossing as JSON-ready dicts.

A *job* is ``{"task": path, "candidate": path | None, "candidate_source": str | None, "dsl": str,
"backend": str, "options": dict}``; a result is ``VerifyResult.to_dict()``. Nothing else crosses, so
the same jobs can run in local processes (:class:`LocalExecutor`), on a Ray cluster
(:class:`RayExecutor`) or anywhere else that can run :func:`run_job`.
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Iterator, Protocol

from akg_rag.errors import AkgError, ConfigError
from akg_rag.verify.result import VerifyResult

JOB_KEYS = {"task", "candidate", "candidate_source", "dsl", "backend", "options"}


def make_job(task: str, candidate: str | None = None, *, dsl: str, backend: str,
             candidate_source: str | None = None, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-ready job dict (paths as strings)."""
    return {"task": str(task), "candidate": None if candidate is None else str(candidate),
            "candidate_source": candidate_source, "dsl": dsl, "backend": backend, "options": dict(options or {})}


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job dict and return the result dict; ``AkgError`` (a bad task or target) propagates."""
    from akg_rag.verify.runner import verify

    unknown = set(job) - JOB_KEYS
    if unknown:
        raise ConfigError(f"unknown job key(s) {sorted(unknown)}; allowed: {', '.join(sorted(JOB_KEYS))}")
    json.dumps(job)  # a job must be JSON: fail here rather than on a remote worker
    result = verify(job["task"], job.get("candidate"), candidate_source=job.get("candidate_source"),
                    dsl=job["dsl"], backend=job["backend"], options=job.get("options"))
    return result.to_dict()


class Executor(Protocol):
    """Anything that runs job dicts: ``map`` in order, ``imap`` as they finish."""

    def map(self, jobs: list[dict[str, Any]]) -> list[VerifyResult]: ...

    def imap(self, jobs: list[dict[str, Any]]) -> Iterator[tuple[int, VerifyResult | AkgError]]: ...


class LocalExecutor:
    """Runs up to ``jobs`` verifications at once, each in its own sandboxed child process.

    The pool's threads only wait on children, so parallelism is process-level. For timing-critical
    benchmarks use ``jobs=1``: concurrent children share cores and memory bandwidth.
    """

    def __init__(self, jobs: int = 1) -> None:
        if jobs < 1:
            raise ConfigError(f"jobs must be >= 1, got {jobs}")
        self.jobs = jobs
        # One lock per user and machine: concurrent executors on one box also take turns timing.
        uid = os.getuid() if hasattr(os, "getuid") else 0
        self.lock_path = os.path.join(tempfile.gettempdir(), f"akg-rag-timing-{uid}.lock")

    def _share_cores(self, job: dict[str, Any]) -> dict[str, Any]:
        """Jobs run side by side share the machine fairly (unless they set their own options).

        CPU jobs get an equal share of the cores: oversubscribed OpenMP barriers make kernels
        orders of magnitude slower. All jobs share one timing lock, so their timed runs never
        overlap while builds, warm-up and correctness checks still run in parallel.
        """
        opts = dict(job.get("options") or {})
        if self.jobs > 1 and job.get("backend") == "cpu" and not opts.get("cpu_threads"):
            opts["cpu_threads"] = max(1, (os.cpu_count() or 1) // self.jobs)
        if self.jobs > 1 and not opts.get("timing_lock"):
            opts["timing_lock"] = self.lock_path
        return dict(job, options=opts)

    def imap(self, jobs: list[dict[str, Any]]) -> Iterator[tuple[int, VerifyResult | AkgError]]:
        """Yield ``(index, result)`` as jobs finish; a job's ``AkgError`` is yielded, not raised."""
        jobs = [self._share_cores(j) for j in jobs]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {pool.submit(run_job, job): i for i, job in enumerate(jobs)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    yield i, VerifyResult.from_dict(json.loads(json.dumps(fut.result())))
                except AkgError as e:
                    yield i, e

    def map(self, jobs: list[dict[str, Any]]) -> list[VerifyResult]:
        """Results in job order; the first job's ``AkgError`` is raised after all jobs finished."""
        out: list[VerifyResult | AkgError | None] = [None] * len(jobs)
        for i, r in self.imap(jobs):
            out[i] = r
        for r in out:
            if isinstance(r, AkgError):
                raise r
        return out  # type: ignore[return-value]


class RayExecutor:
    """Runs jobs as Ray tasks (``num_gpus`` per job on cuda backends); needs ``pip install 'akg-rag[ray]'``."""

    def __init__(self, address: str | None = None, num_gpus: float = 1.0) -> None:
        try:
            import ray  # type: ignore[import-not-found]
        except ImportError:
            raise ConfigError("RayExecutor needs ray: pip install 'akg-rag[ray]' (or use LocalExecutor)") from None
        self._ray = ray
        if not ray.is_initialized():
            ray.init(address=address)
        self.num_gpus = num_gpus

    def imap(self, jobs: list[dict[str, Any]]) -> Iterator[tuple[int, VerifyResult | AkgError]]:
        """Yield ``(index, result)`` as Ray tasks finish."""
        ray = self._ray
        remote = ray.remote(run_job)
        refs = {}
        for i, job in enumerate(jobs):
            gpus = self.num_gpus if job.get("backend") == "cuda" else 0
            refs[remote.options(num_gpus=gpus).remote(job)] = i
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                yield refs[done[0]], VerifyResult.from_dict(ray.get(done[0]))
            except ray.exceptions.RayTaskError as e:
                cause = e.as_instanceof_cause()
                if isinstance(cause, AkgError):
                    yield refs[done[0]], cause
                else:
                    raise

    def map(self, jobs: list[dict[str, Any]]) -> list[VerifyResult]:
        """Results in job order (see :meth:`LocalExecutor.map`)."""
        out: list[Any] = [None] * len(jobs)
        for i, r in self.imap(jobs):
            out[i] = r
        for r in out:
            if isinstance(r, AkgError):
                raise r
        return out


def make_executor(kind: str = "local", jobs: int = 1, address: str | None = None) -> Executor:
    """``local`` or ``ray``; raises ``ConfigError`` listing the allowed kinds."""
    if kind == "local":
        return LocalExecutor(jobs=jobs)
    if kind == "ray":
        return RayExecutor(address=address)
    raise ConfigError(f"unknown executor {kind!r}; allowed: local, ray")
