"""Executors: run many verifications, with jobs and results crossing as JSON-ready dicts.

A *job* is ``{"task": path, "candidate": path | None, "candidate_source": str | None, "dsl": str,
"backend": str, "options": dict}``, optionally with ``"task_source"`` (the task file's text): a
*portable* job (:func:`portable`) carries both sources, so a machine that cannot see the
submitter's files runs it as well. A result is ``VerifyResult.to_dict()``. Nothing else crosses, so
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

JOB_KEYS = {"task", "candidate", "candidate_source", "task_source", "dsl", "backend", "options"}
# Option keys that name paths on the submitting machine; a portable job drops them (the worker's
# defaults apply: its own build cache, its own timing lock).
LOCAL_PATH_OPTIONS = ("cache_dir", "timing_lock")


def make_job(task: str, candidate: str | None = None, *, dsl: str, backend: str,
             candidate_source: str | None = None, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-ready job dict (paths as strings)."""
    return {"task": str(task), "candidate": None if candidate is None else str(candidate),
            "candidate_source": candidate_source, "dsl": dsl, "backend": backend, "options": dict(options or {})}


def portable(job: dict[str, Any]) -> dict[str, Any]:
    """The job with the task and candidate files read into it and local-path options dropped.

    ``task`` and ``candidate`` stay as labels (the result reports them as the submitter named them).
    """
    from akg_rag.task import read_source

    out = dict(job, options={k: v for k, v in (job.get("options") or {}).items() if k not in LOCAL_PATH_OPTIONS})
    if out.get("task_source") is None:
        out["task_source"] = read_source(job["task"])
    if out.get("candidate_source") is None and out.get("candidate"):
        out["candidate_source"] = read_source(job["candidate"])
    return out


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job dict and return the result dict; ``AkgError`` (a bad task or target) propagates.

    A job with ``task_source`` runs from a private copy of the task (named like the original, in a
    temporary directory); the result still names the submitter's task and candidate.
    """
    from akg_rag.verify.runner import verify

    unknown = set(job) - JOB_KEYS
    if unknown:
        raise ConfigError(f"unknown job key(s) {sorted(unknown)}; allowed: {', '.join(sorted(JOB_KEYS))}")
    json.dumps(job)  # a job must be JSON: fail here rather than on a remote worker
    candidate, candidate_source = job.get("candidate"), job.get("candidate_source")
    if job.get("task_source") is None:
        result = verify(job["task"], candidate, candidate_source=candidate_source,
                        dsl=job["dsl"], backend=job["backend"], options=job.get("options"))
        return result.to_dict()
    with tempfile.TemporaryDirectory(prefix="akg-job-") as tmp:
        task = os.path.join(tmp, os.path.basename(job["task"]) or "task.py")
        with open(task, "w", encoding="utf-8") as f:
            f.write(job["task_source"])
        result = verify(task, None if candidate_source is not None else candidate,
                        candidate_source=candidate_source, dsl=job["dsl"], backend=job["backend"],
                        options=job.get("options"))
    out = result.to_dict()
    out["task"] = str(job["task"])
    if candidate:
        out["candidate"] = str(candidate)
    return out


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
    """Runs jobs as Ray tasks on a cluster; needs ``pip install 'akg-rag[ray]'``.

    Jobs are made :func:`portable` before they leave: a worker needs akg-rag and torch (and triton
    or a compiler for its DSL), never the submitter's files. A job on a cuda backend asks for
    ``num_gpus`` GPUs, so Ray places it on a GPU node. A worker that dies mid-job (killed, out of
    memory, its node lost) has the job rerun elsewhere up to ``max_retries`` times; after that the
    job is reported as ``crashed`` with the reason, so every job gets a result.
    """

    def __init__(self, address: str | None = None, num_gpus: float = 1.0, max_retries: int = 2) -> None:
        try:
            import ray  # type: ignore[import-not-found]
        except ImportError:
            raise ConfigError("RayExecutor needs ray: pip install 'akg-rag[ray]' (or use LocalExecutor)") from None
        self._ray = ray
        if not ray.is_initialized():
            try:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
            except ConnectionError as e:
                raise ConfigError(f"cannot join the Ray cluster at {address or 'RAY_ADDRESS'}: {e}; "
                                  "start one with `ray start --head` or drop --ray-address") from None
        self.num_gpus = num_gpus
        self.max_retries = max_retries
        self._remote = ray.remote(run_job)

    def imap(self, jobs: list[dict[str, Any]]) -> Iterator[tuple[int, VerifyResult | AkgError]]:
        """Yield ``(index, result)`` as Ray tasks finish; a job's ``AkgError`` is yielded, not raised."""
        ray = self._ray
        refs = {}
        for i, job in enumerate(jobs):
            gpus = self.num_gpus if job.get("backend") == "cuda" else 0
            task = self._remote.options(num_gpus=gpus, max_retries=self.max_retries, retry_exceptions=False)
            refs[task.remote(portable(job))] = i
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            i = refs[done[0]]
            try:
                yield i, VerifyResult.from_dict(ray.get(done[0]))
            except ray.exceptions.RayTaskError as e:
                cause = e.as_instanceof_cause()
                if isinstance(cause, AkgError):
                    yield i, cause
                else:
                    raise
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                    ray.exceptions.OutOfMemoryError) as e:
                yield i, lost_job(jobs[i], f"{type(e).__name__} after {self.max_retries} retries: {e}")

    def map(self, jobs: list[dict[str, Any]]) -> list[VerifyResult]:
        """Results in job order (see :meth:`LocalExecutor.map`)."""
        out: list[Any] = [None] * len(jobs)
        for i, r in self.imap(jobs):
            out[i] = r
        for r in out:
            if isinstance(r, AkgError):
                raise r
        return out


def lost_job(job: dict[str, Any], reason: str) -> VerifyResult:
    """The verdict of a job whose worker died every time it ran: ``crashed``, with the reason."""
    return VerifyResult(status="crashed", feedback=f"the worker running this job died: {reason}",
                        dsl=job.get("dsl", ""), backend=job.get("backend", ""), task=str(job.get("task", "")),
                        candidate=str(job.get("candidate") or "<source>"))


class ExecutorVerify:
    """A function with :func:`akg_rag.verify.verify`'s signature that runs through an executor.

    The agent graph takes it as its verify function (``Context.verify_fn``), so ``akg-rag generate
    --executor ray`` verifies each candidate on the cluster.
    """

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    def __call__(self, task: Any, candidate: Any = None, *, candidate_source: str | None = None,
                 dsl: str, backend: str, options: Any = None) -> VerifyResult:
        opts = options.to_dict() if hasattr(options, "to_dict") else dict(options or {})
        job = make_job(str(task), None if candidate is None else str(candidate), dsl=dsl, backend=backend,
                       candidate_source=candidate_source, options=opts)
        return self.executor.map([job])[0]


def make_executor(kind: str = "local", jobs: int = 1, address: str | None = None) -> Executor:
    """``local`` or ``ray``; raises ``ConfigError`` listing the allowed kinds."""
    if kind == "local":
        return LocalExecutor(jobs=jobs)
    if kind == "ray":
        return RayExecutor(address=address)
    raise ConfigError(f"unknown executor {kind!r}; allowed: local, ray")
