"""Executor seams: job validation, core sharing, and the Ray hint when ray is missing."""

from __future__ import annotations

import importlib.util
import os

import pytest

from akg_rag.errors import ConfigError
from akg_rag.verify.executor import LocalExecutor, RayExecutor, make_executor, make_job, run_job


def test_parallel_cpu_jobs_share_the_cores():
    job = make_job("t.py", "c.py", dsl="cpp", backend="cpu")
    shared = LocalExecutor(jobs=2)._share_cores(job)
    assert shared["options"]["cpu_threads"] == max(1, (os.cpu_count() or 1) // 2)
    assert "cpu_threads" not in LocalExecutor(jobs=1)._share_cores(job)["options"]
    own = make_job("t.py", "c.py", dsl="cpp", backend="cpu", options={"cpu_threads": 7})
    assert LocalExecutor(jobs=2)._share_cores(own)["options"]["cpu_threads"] == 7


def test_bad_jobs_and_kinds_raise():
    with pytest.raises(ConfigError, match="unknown job key"):
        run_job({"task": "t.py", "dsl": "cpp", "backend": "cpu", "priority": 1})
    with pytest.raises(ConfigError, match="allowed: local, ray"):
        make_executor("slurm")
    with pytest.raises(ConfigError):
        LocalExecutor(jobs=0)


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed")
def test_ray_executor_names_the_install_hint():
    with pytest.raises(ConfigError, match=r"akg-rag\[ray\]"):
        RayExecutor()
