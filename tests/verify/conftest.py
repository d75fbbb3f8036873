"""Fixtures of the verifier tests: test tasks, known-bad candidates, one shared build cache.

Every verification spawns a real child (torch import ~3 s), so candidates that only need the Triton
interpreter are verified once per session in a parallel batch and each test asserts on its result.
C++ builds (~24 s each) share one cache directory, so the correct extension is built once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.verify.executor import LocalExecutor, make_job

HERE = Path(__file__).parent
TASKS = HERE / "tasks"
CANDIDATES = HERE / "candidates"

# Fast protocol settings for tests: two trials, short timing, no torch.compile (~17 s on CPU).
FAST = {"trials": 2, "compile_baseline": False, "runs": 3, "timeout_s": 120.0, "memory_mb": 4096}

# name -> (task, extra options); rt_* candidates run with static guards off, so the run-time hooks
# alone must catch them.
TRITON_BATCH: dict[str, tuple[str, dict]] = {
    "triton_correct": ("rowscale", {}),
    "triton_incorrect": ("rowscale", {}),
    "triton_relu_nonneg": ("relu_nonneg", {}),
    "triton_tail_bug": ("rowscale_dyn", {}),
    "triton_correct@dyn": ("rowscale_dyn", {}),
    "triton_constant": ("rowscale_const", {}),
    "triton_runtime_error": ("rowscale", {}),
    "triton_hang": ("rowscale", {"timeout_s": 25.0}),
    "triton_abort": ("rowscale", {}),
    "triton_memory_hog": ("rowscale", {"memory_mb": 3072}),
    "triton_dead_branch": ("rowscale", {}),
    "triton_decorative": ("rowscale", {}),
    "triton_partial": ("rowscale", {}),
    "triton_same_buffer": ("rowscale", {}),
    "triton_two_buffers": ("rowscale", {"timing": False}),
    "triton_memo": ("rowscale", {}),
    "triton_memo_address": ("rowscale", {}),
    "triton_memo_sampled": ("rowscale", {}),
    "triton_deferred": ("rowscale", {}),
    "triton_timed_mode": ("rowscale", {}),
    "triton_inplace": ("rowscale", {}),
    "cpp_never_built": ("rowscale", {}),
    "rt_thread": ("rowscale", {}),
    "rt_fork": ("rowscale", {}),
    "rt_getframe": ("rowscale", {}),
    "rt_gc": ("rowscale", {}),
    "rt_timer": ("rowscale", {}),
    "rt_allclose": ("rowscale", {}),
    "rt_os_exit": ("rowscale", {}),
    "rt_sys_exit": ("rowscale", {}),
    "rt_posix_exit": ("rowscale", {}),
    "rt_forge": ("rowscale", {}),
    "rt_segfault": ("rowscale", {}),
    "rt_frame_walk": ("rowscale", {}),
    "rt_procfs": ("rowscale", {}),
    "rt_write_outside": ("rowscale", {}),
    "triton_identity": ("rowscale", {}),
    "triton_decorative_aten": ("rowscale", {}),
    "triton_stateful": ("counter", {}),
}


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One extension build cache for the whole session."""
    return str(tmp_path_factory.mktemp("akg-cache"))


def job_for(name: str, task: str, extra: dict, cache: str) -> dict:
    """A job dict for candidate file ``name`` (``name@tag`` reuses a file) on test task ``task``."""
    file = name.split("@")[0]
    dsl = "cpp" if file.startswith("cpp") else "triton"
    opts = dict(FAST, cache_dir=cache, static_guards=not file.startswith("rt_"), **extra)
    return make_job(str(TASKS / f"{task}.py"), str(CANDIDATES / f"{file}.py"), dsl=dsl, backend="cpu",
                    options=opts)


@pytest.fixture(scope="session")
def batch(cache_dir: str) -> dict:
    """Results of every TRITON_BATCH candidate, verified two at a time."""
    names = list(TRITON_BATCH)
    jobs = [job_for(n, *TRITON_BATCH[n], cache_dir) for n in names]
    results = LocalExecutor(jobs=2).map(jobs)
    return dict(zip(names, results))
