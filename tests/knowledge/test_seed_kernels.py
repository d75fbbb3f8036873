"""Every seed kernel in knowledge/kernels passes the project's verifier.

On a CPU machine (CI): cpp/cpu candidates build and run natively; triton/cuda candidates run
through the Triton interpreter (backend "cpu", correctness only). Both at AKG_TASK_SCALE=small.
CUDA candidates (triton/cuda, cuda_c/cuda) at full scale need a GPU and are skipped without one;
their H200 figures live in the sidecars and docs/results/.

All verifications of a run are submitted to one LocalExecutor batch (two at a time: the machine
has two cores), then each parametrised test reads its own verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "knowledge" / "kernels"
TARGETS = ("cpp_cpu", "triton_cuda", "cuda_c_cuda")


def _split(stem: str) -> tuple[str, str]:
    """``cuda_c_cuda`` -> ("cuda_c", "cuda"): the backend is the last underscore field."""
    dsl, backend = stem.rsplit("_", 1)
    return dsl, backend


def seed_candidates() -> list[tuple[str, str]]:
    """(family, target stem) for every candidate file of every seed folder."""
    out = []
    for folder in sorted(p for p in ROOT.iterdir() if (p / "task.py").is_file()):
        for stem in TARGETS:
            if (folder / f"{stem}.py").is_file():
                out.append((folder.name, stem))
    return out


CANDIDATES = seed_candidates()
CPU_RUNS = [(fam, stem) for fam, stem in CANDIDATES if stem in ("cpp_cpu", "triton_cuda")]


def _cpu_job(family: str, stem: str) -> dict:
    from akg_rag.verify.executor import make_job

    dsl, _ = _split(stem)
    # triton candidates are written for CUDA; on this machine the interpreter runs them on CPU.
    backend = "cpu"
    return make_job(
        str(ROOT / family / "task.py"), str(ROOT / family / f"{stem}.py"), dsl=dsl, backend=backend,
        options={"scale": "small", "timing": False, "timeout_s": 900},
    )


@pytest.fixture(scope="module")
def cpu_verdicts(request) -> dict[tuple[str, str], object]:
    """Verify every CPU-runnable seed candidate selected in this session, two at a time."""
    from akg_rag.verify.executor import LocalExecutor

    wanted = [item.callspec.params["case"] for item in request.session.items
              if getattr(item, "callspec", None) and item.originalname == "test_seed_kernel_verifies_on_cpu"]
    wanted = wanted or CPU_RUNS
    results = LocalExecutor(jobs=2).map([_cpu_job(*case) for case in wanted])
    return dict(zip(wanted, results))


def test_every_seed_folder_has_a_task_and_candidates():
    folders = [p for p in ROOT.iterdir() if p.is_dir()]
    assert len(folders) >= 50
    for folder in folders:
        assert (folder / "task.py").is_file(), f"{folder.name}: no task.py"
        assert (folder / "cpp_cpu.py").is_file(), f"{folder.name}: no cpp/cpu candidate"
        assert (folder / "triton_cuda.py").is_file(), f"{folder.name}: no triton/cuda candidate"


@pytest.mark.parametrize("case", CANDIDATES, ids=[f"{f}-{s}" for f, s in CANDIDATES])
def test_seed_sidecar_matches_its_candidate(case):
    family, stem = case
    sidecar = ROOT / family / f"{stem}.json"
    assert sidecar.is_file(), f"{family}/{stem}.py has no sidecar"
    meta = json.loads(sidecar.read_text())
    assert (meta["dsl"], meta["backend"]) == _split(stem)
    assert meta.get("origin") == "seed"


@pytest.mark.slow
@pytest.mark.parametrize("case", CPU_RUNS, ids=[f"{f}-{s}" for f, s in CPU_RUNS])
def test_seed_kernel_verifies_on_cpu(case, cpu_verdicts):
    result = cpu_verdicts[case]
    assert result.status == "correct", f"{case[0]}/{case[1]}: {result.status}\n{result.feedback}"
    assert not result.guard_violations
