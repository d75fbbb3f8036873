"""The verifier on a CUDA GPU: every triton and cuda_c seed at full shape, timing and profiling on the
device, the bench command, and the hostile candidates. Skipped without a GPU.

Runs under pytest (``pytest -m gpu tests/verify/test_gpu.py``) and, where pytest is missing, as a
plain script: ``python -m tests.gpu_suite`` runs the same ``check_*`` functions and prints a
pytest-like summary line. Only torch, triton and the standard library are imported, so it runs on a
bare GPU box from a checkout (``PYTHONPATH=.``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from tests.verify.escape import escape_candidate

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "knowledge" / "kernels"
HERE = Path(__file__).parent
# Correctness of the whole seed library: several children at once (the box has 16 cores and one
# GPU; correctness runs are short, and timing is off so they cannot skew each other).
SEED_JOBS = 8
FAST = {"trials": 2, "compile_baseline": False, "timeout_s": 300.0}

# Hostile candidates on the rowscale task: name -> (status, guard named in the verdict or None).
HOSTILE: dict[str, tuple[str, str | None]] = {
    "triton_correct": ("correct", None),
    "triton_incorrect": ("incorrect", None),
    "triton_runtime_error": ("runtime_error", None),
    "triton_hang": ("timeout", None),
    "triton_abort": ("crashed", None),
    "rt_segfault": ("crashed", None),
    "triton_dead_branch": ("guard_violation", "no_kernel"),
    "triton_decorative": ("guard_violation", "torch_fallback"),
    "triton_same_buffer": ("guard_violation", "cached_output"),
    "triton_memo": ("guard_violation", "cached_output"),
    "triton_memo_address": ("guard_violation", "cached_output"),
    "triton_memo_sampled": ("guard_violation", "cached_output"),
    "triton_deferred": ("guard_violation", "foreign_output"),
    "triton_timed_mode": ("guard_violation", "cached_output"),
    "triton_inplace": ("guard_violation", "inputs_modified"),
    "rt_thread": ("guard_violation", "spawn"),
    "rt_fork": ("guard_violation", "spawn"),
    "rt_getframe": ("guard_violation", "introspection"),
    "rt_gc": ("guard_violation", "introspection"),
    "rt_timer": ("guard_violation", "patched_timer"),
    "rt_allclose": ("guard_violation", "monkeypatch"),
    "rt_os_exit": ("guard_violation", "early_exit"),
    "rt_sys_exit": ("guard_violation", "early_exit"),
    "rt_posix_exit": ("guard_violation", "early_exit"),
    "rt_forge": ("guard_violation", "file_access"),  # writing a verdict file is refused before any forgery
}


def _seeds(dsl: str) -> list:
    """Bench every seed of ``dsl``/cuda at full shape (correctness only); return the bench items."""
    from akg_rag.verify.bench import discover, run_bench
    from akg_rag.verify.executor import LocalExecutor
    from akg_rag.verify.options import VerifyOptions

    items = discover(KERNELS, KERNELS, dsl, "cuda")
    items = [it for it in items if it.candidate is not None]
    opts = VerifyOptions(scale="full", timing=False, **FAST)
    run_bench(items, dsl, "cuda", opts, LocalExecutor(jobs=SEED_JOBS), progress=False)
    return items


def _failures(items: list) -> list[str]:
    return [f"{it.name}: {it.status}: {(it.result.feedback if it.result else it.error or '')[:300]}"
            for it in items if it.status != "correct"]


def check_triton_seeds_at_full_shape() -> None:
    items = _seeds("triton")
    assert len(items) >= 59, f"only {len(items)} triton/cuda seeds found"
    assert not _failures(items), "\n".join(_failures(items))


def check_cuda_c_seeds_at_full_shape() -> None:
    items = _seeds("cuda_c")
    assert len(items) >= 8, f"only {len(items)} cuda_c/cuda seeds found"
    assert not _failures(items), "\n".join(_failures(items))


def check_verify_times_and_profiles_on_the_device() -> None:
    from akg_rag.verify import VerifyOptions, verify

    r = verify(HERE / "tasks" / "rowscale.py", HERE / "candidates" / "triton_correct.py", dsl="triton",
               backend="cuda", options=VerifyOptions(trials=3, compile_baseline=True, profile=True))
    assert r.status == "correct", r.feedback + r.log
    t = r.timings
    assert t is not None and t.meaningful and t.candidate_ms > 0 and t.eager_ms > 0
    assert t.speedup_eager is not None and t.device
    assert t.compile_ms is not None and t.achieved_gbps and t.achieved_gbps > 0
    # interleaved across the judge and the candidate process, with event timing on both sides
    assert t.method == "cuda_event" and t.blocks >= 6 and t.verdict_eager and t.verdict_compile
    assert t.speedup_eager_low <= t.speedup_eager <= t.speedup_eager_high
    assert t.queued is True
    # the fresh-input check's first call on new values, timed alone behind a sleep, agrees with the
    # queued median (within the judge's 2x + 5 us)
    assert t.first_call_ms is not None and 0 < t.first_call_ms <= 2 * t.candidate_ms + 0.005, t
    if min(t.candidate_ms, t.eager_ms) < 0.05:  # short calls: each side replays its own CUDA graph
        assert t.graph_method == "cuda_graph" and t.graph_candidate_ms > 0, t.graph_error
    assert r.profile and any("rowscale" in k["name"] for k in r.profile), r.profile


def check_bench_command_on_the_device() -> None:
    with tempfile.TemporaryDirectory() as out:
        names = ["softmax", "relu", "layer_norm"]
        cmd = [sys.executable, "-m", "akg_rag.verify", "bench", str(KERNELS), str(KERNELS), "--dsl", "triton",
               "--backend", "cuda", "--scale", "full", "--no-compile-baseline", "--trials", "2",
               "--report", out, "--json", "--only", *names]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert run.returncode == 0, run.stderr[-3000:]
        data = json.loads(run.stdout)
        assert data["summary"]["n_correct"] == len(names) and data["summary"]["meaningful"]
        assert all(t["result"]["timings"]["speedup_eager"] > 0 for t in data["tasks"])
        assert (Path(out) / "results.json").is_file() and (Path(out) / "report.md").is_file()


def check_hostile_candidates_on_the_device() -> None:
    from akg_rag.verify.executor import LocalExecutor, make_job

    names = list(HOSTILE)
    jobs = []
    for name in names:
        opts = dict(FAST, static_guards=not name.startswith("rt_"), runs=3)
        if name == "triton_hang":
            opts["timeout_s"] = 25.0
        jobs.append(make_job(str(HERE / "tasks" / "rowscale.py"), str(HERE / "candidates" / f"{name}.py"),
                             dsl="triton", backend="cuda", options=opts))
    wrong = []
    for name, r in zip(names, LocalExecutor(jobs=4).map(jobs)):
        status, guard = HOSTILE[name]
        if r.status != status or (guard and guard not in r.violation_names()):
            wrong.append(f"{name}: expected {status}/{guard}, got {r.status} {r.violation_names()}: "
                         f"{r.feedback[:200]}")
    assert not wrong, "\n".join(wrong)


def check_unshare_sandbox_on_the_device() -> None:
    """The unshare level (the H200 box has util-linux unshare, no bubblewrap, and runs as root):
    Triton and CUDA-C candidates open the GPU inside it (device nodes, driver libraries, /tmp and the
    build cache), a forward with dropout kept as a torch call matches on the CUDA generator, and the
    OS-level escapes still fail."""
    from akg_rag.verify import VerifyOptions, sandbox, verify
    from akg_rag.verify.executor import LocalExecutor, make_job

    box = sandbox.choose(gpu=True, start="unshare")
    assert box.level == "unshare", box.describe()
    before = os.environ.get("AKG_RAG_ISOLATION")
    os.environ["AKG_RAG_ISOLATION"] = "unshare"      # verify() (and the executor's workers) start there
    try:
        with tempfile.TemporaryDirectory() as tmp:
            esc = escape_candidate(Path(tmp), "HOSTSECRET-gpu")
            jobs = [
                make_job(str(HERE / "tasks" / "rowscale.py"), str(HERE / "candidates" / "triton_correct.py"),
                         dsl="triton", backend="cuda", options=dict(FAST, runs=5)),
                make_job(str(KERNELS / "relu" / "task.py"), str(KERNELS / "relu" / "cuda_c_cuda.py"),
                         dsl="cuda_c", backend="cuda", options=dict(FAST, timing=False)),
                make_job(str(HERE / "tasks" / "tanh_dropout.py"), str(HERE / "candidates" / "triton_dropout_kept.py"),
                         dsl="triton", backend="cuda", options=dict(FAST, trials=3, timing=False)),
            ]
            results = LocalExecutor(jobs=1).map(jobs)
            for r in results:
                assert r.status == "correct", f"{r.candidate}: {r.status}: {r.feedback[:500]}\n{r.log[-1500:]}"
                assert r.isolation.startswith("unshare"), r.isolation
            assert results[0].timings is not None and results[0].timings.method == "cuda_event"
            assert results[2].partial                            # dropout stayed a torch call
            r = verify(HERE / "tasks" / "rowscale.py", esc.candidate, dsl="triton", backend="cuda",
                       options=VerifyOptions(trials=1, timing=False, static_guards=False, timeout_s=300.0))
            reached = esc.reached()
            escape = [ln for ln in r.log.splitlines() if ln.startswith("ESCAPE ")]
            assert r.status == "correct" and escape, r.feedback + r.log
            got = json.loads(escape[0][len("ESCAPE "):])
            assert got["environ_hits"] == 0 and got["host_file"] is None and not got["connected"], got
            assert not got["planted"] and not esc.planted.exists() and not reached
    finally:
        if before is None:
            os.environ.pop("AKG_RAG_ISOLATION", None)
        else:
            os.environ["AKG_RAG_ISOLATION"] = before


CHECKS = [check_verify_times_and_profiles_on_the_device, check_unshare_sandbox_on_the_device,
          check_hostile_candidates_on_the_device,
          check_bench_command_on_the_device, check_cuda_c_seeds_at_full_shape, check_triton_seeds_at_full_shape]

try:
    import pytest
except ImportError:  # a bare GPU box: tests/gpu_suite.py runs the checks
    pytest = None

if pytest is not None:
    pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

    @pytest.mark.parametrize("check", CHECKS, ids=[c.__name__.removeprefix("check_") for c in CHECKS])
    def test_on_gpu(check):
        check()
