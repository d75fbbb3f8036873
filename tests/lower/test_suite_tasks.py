"""The lowering suite (benchmarks/tasks): every task is well formed, and the pipeline lowers it.

Fast (default run): every task loads and runs its reference at small scale on the CPU, draws the
same weights from the same seed, has small odd-sized inputs, and its analysis succeeds with an op
type of its family and realistic traffic at full scale.

End to end (skipped until ``akg_rag.lower.assemble.lower_task`` exists): a task is lowered at
small scale and its candidate verified by ``akg_rag.verify`` (5 trials, sandboxed child):
- C++/cpu: four tasks in the default run (extension builds of ~15-25 s each: the families the
  Triton sample leaves out, and ceil-mode pooling), the whole suite under ``-m slow``; the other
  families' C++ constructs are built by tests/lower/test_cpp.py's one shared extension;
- Triton: six tiny tasks lowered for cuda and run by the Triton interpreter on the CPU (verifier
  backend "cpu", as tests/knowledge/test_seed_kernels.py runs the Triton seeds), the whole suite
  under ``-m slow``.
Between them the two samples cover every family.
All verifications of a session go to one LocalExecutor batch, two at a time (the machine has two
cores); each parametrised test then reads its own verdict.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "benchmarks" / "tasks"
TASKS = sorted(p.stem for p in SUITE.glob("*.py"))
FAMILIES = ("pw", "red", "norm", "loss", "scan", "pool", "gemm", "conv")
# What the task analysis may call a family's primary op type (a loss built from a softmax is a
# softmax by the vocabulary's priority; an L1/Frobenius norm is a reduction).
FAMILY_OP_TYPES = {
    "pw": {"elementwise"}, "red": {"reduction", "softmax"}, "norm": {"normalization", "reduction"},
    "loss": {"loss", "reduction", "softmax"}, "scan": {"scan"}, "pool": {"pooling"},
    "gemm": {"matmul"}, "conv": {"conv"},
}
SMALL_INPUT_BYTES = 64 * 1024              # small scale: inputs of one call stay under 64 kB
FULL_MIN_BYTES = (16 * 2**20, 700 * 2**20)  # full scale: 16 MB .. 700 MB of minimum traffic

# The default C++ run: 4 builds, the families the Triton sample has not (norm, loss, conv) and
# ceil-mode pooling divisors (a C++ avg-pool divisor once failed to build); each stresses its
# family's harder path (dependent reductions, a batch-mean loss, a depthwise conv's tail).
CPP_SAMPLE = ["norm_layer_norm_func_2d", "loss_kl_batchmean", "pool_avg2d_ceil_pad", "conv2d_depthwise_hswish"]
# Tiny tasks for the Triton interpreter (it runs every program of the grid in Python).
TRITON_SAMPLE = ["pw_quick_gelu_formula", "red_log_softmax_temp", "scan_cumsum_middle",
                 "pool_max1d_strided", "pool_max1d_dilated_s1", "gemm_bmm_scale",
                 "conv_transpose2d_s2_phases", "conv2d_rgb_input_gelu"]
# Tasks the Triton interpreter cannot run (none at present: bfloat16 passes with triton 3.x).
TRITON_INTERPRETER_SKIP: dict[str, str] = {}
# Known failures of the lowering, seen with benchmarks/lower_suite.py (strict: a fix shows up as
# XPASS, and the entry goes): none at present. (Dynamic-shape tasks once failed on their second input
# set, and the C++ avg-pool divisor without padding once failed to build.)
KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def family(stem: str) -> str:
    """``red_std_rows`` -> ``red``; every conv task starts with ``conv``."""
    return next(f for f in FAMILIES if stem.startswith(f))


@contextlib.contextmanager
def task_scale(scale: str):
    """AKG_TASK_SCALE for tasks loaded in this process (they read it at import)."""
    old = os.environ.get("AKG_TASK_SCALE")
    os.environ["AKG_TASK_SCALE"] = scale
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("AKG_TASK_SCALE", None)
        else:
            os.environ["AKG_TASK_SCALE"] = old


def _tensors(values) -> list[torch.Tensor]:
    return [v for v in values if isinstance(v, torch.Tensor)]


# ---- the suite itself ------------------------------------------------------------------------

def test_suite_covers_every_family_and_the_readme_lists_it():
    assert len(TASKS) >= 70
    for f in FAMILIES:
        assert sum(family(t) == f for t in TASKS) >= 5, f"family {f} has fewer than 5 tasks"
    readme = (SUITE / "README.md").read_text()
    listed = set(re.findall(r"^\| ((?:pw|red|norm|loss|scan|pool|gemm|conv)\w*) \|", readme, re.M))
    assert listed == set(TASKS), f"README and files differ: {sorted(listed ^ set(TASKS))}"
    dynamic = [t for t in TASKS if "def get_inputs_dyn_list" in (SUITE / f"{t}.py").read_text()]
    assert len(dynamic) >= 2


@pytest.mark.parametrize("name", TASKS)
def test_task_runs_at_small_scale(name):
    from akg_rag.task import load_task

    with task_scale("small"):
        task = load_task(SUITE / f"{name}.py")
    assert task.module.SCALE == "small"
    sets = task.input_sets()
    outs = []
    for seed in (0, 0):  # the verifier builds Model and ModelNew after the same seed
        torch.manual_seed(seed)
        model = task.model_cls(*task.get_init_inputs())
        with torch.no_grad():
            outs.append([model(*s) for s in sets])
    for a, b in zip(*outs):
        assert torch.equal(a, b), f"{name}: two models built from one seed disagree"
    for inputs, out in zip(sets, outs[0]):
        nbytes = sum(t.numel() * t.element_size() for t in _tensors(inputs))
        assert nbytes <= SMALL_INPUT_BYTES, f"{name}: {nbytes} input bytes at small scale"
        assert isinstance(out, torch.Tensor) and torch.isfinite(out.float()).all(), name
    dims = {d for t in _tensors(sets[0]) for d in t.shape}
    assert any(d > 1 and d % 8 for d in dims), f"{name}: no odd size to hit tile tails ({sorted(dims)})"


@pytest.mark.parametrize("name", TASKS)
def test_task_analysis(name):
    from akg_rag.analysis import analyze_task

    path = SUITE / f"{name}.py"
    with task_scale("small"):
        small = analyze_task(path)
    assert small.op_type in FAMILY_OP_TYPES[family(name)], (name, small.op_type, small.op_types)
    assert small.dynamic == ("def get_inputs_dyn_list" in path.read_text())
    with task_scale("full"):
        full = analyze_task(path)
    low, high = FULL_MIN_BYTES
    assert low <= full.min_bytes <= high, f"{name}: {full.min_bytes / 2**20:.0f} MB at full scale"
    assert full.op_type == small.op_type


# ---- end to end: lower, then verify ----------------------------------------------------------

def _lower_task():
    assemble = pytest.importorskip("akg_rag.lower.assemble", reason="the lowering pipeline is not merged")
    if not hasattr(assemble, "lower_task"):
        pytest.skip("akg_rag.lower.assemble.lower_task does not exist yet")
    return assemble.lower_task


def _selected(request, test_names: set[str]) -> list[tuple[str, str]]:
    """(target, task) of the end-to-end tests selected in this session."""
    cases = []
    for item in request.session.items:
        if item.get_closest_marker("skip"):
            continue
        if getattr(item, "originalname", None) in test_names and getattr(item, "callspec", None):
            case = item.callspec.params["case"]
            if case not in cases:
                cases.append(case)
    return cases


# target -> (dsl and backend of the lowering, backend of the verifier)
TARGETS = {"cpp": ("cpp", "cpu", "cpu"), "triton": ("triton", "cuda", "cpu")}
E2E_TESTS = {"test_lowered_sample_verifies", "test_lowered_suite_verifies"}


@pytest.fixture(scope="module")
def verdicts(request) -> dict[tuple[str, str], dict]:
    """Lower every selected (target, task) at small scale and verify the candidates in one batch."""
    lower_task = _lower_task()
    from akg_rag.verify.executor import LocalExecutor, make_job

    cases = _selected(request, E2E_TESTS)
    out: dict[tuple[str, str], dict] = {}
    jobs, keys = [], []
    with task_scale("small"):
        for target, name in cases:
            dsl, backend, verify_backend = TARGETS[target]
            path = SUITE / f"{name}.py"
            try:
                source, report = lower_task(path, dsl, backend)
            except Exception as e:  # noqa: BLE001 - reported by the test of that case
                out[(target, name)] = {"lower_error": f"{type(e).__name__}: {e}"}
                continue
            out[(target, name)] = {"report": report.to_dict()}
            keys.append((target, name))
            jobs.append(make_job(str(path), candidate_source=source, dsl=dsl, backend=verify_backend,
                                 options={"scale": "small", "timing": False, "timeout_s": 900}))
    for key, result in zip(keys, LocalExecutor(jobs=2).map(jobs)):
        out[key]["result"] = result
    return out


def _check(verdict: dict, target: str, name: str) -> None:
    assert "lower_error" not in verdict, f"{target}/{name}: lowering failed: {verdict.get('lower_error')}"
    result = verdict["result"]
    assert result.status == "correct", f"{target}/{name}: {result.status}\n{result.feedback}"
    assert not result.guard_violations, f"{target}/{name}: {result.violation_names()}"


SAMPLE = [("cpp", t) for t in CPP_SAMPLE] + [("triton", t) for t in TRITON_SAMPLE]


@pytest.mark.parametrize("case", SAMPLE, ids=[f"{t}-{n}" for t, n in SAMPLE])
def test_lowered_sample_verifies(case, verdicts):
    _check(verdicts[case], *case)


def _suite_case(target: str, name: str):
    reason = TRITON_INTERPRETER_SKIP.get(name) if target == "triton" else None
    marks = [pytest.mark.skip(reason=reason)] if reason else []
    if (target, name) in KNOWN_FAILURES:
        marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[(target, name)], strict=True))
    return pytest.param((target, name), id=f"{target}-{name}", marks=marks)


SUITE_CASES = [_suite_case("cpp", t) for t in TASKS] + [_suite_case("triton", t) for t in TASKS]


@pytest.mark.slow
@pytest.mark.parametrize("case", SUITE_CASES)
def test_lowered_suite_verifies(case, verdicts):
    _check(verdicts[case], *case)


def test_samples_cover_every_family():
    assert {family(t) for t in CPP_SAMPLE + TRITON_SAMPLE} == set(FAMILIES)
    assert len({family(t) for t in CPP_SAMPLE}) == len(CPP_SAMPLE)   # one build per family at most
    assert set(CPP_SAMPLE) <= set(TASKS) and set(TRITON_SAMPLE) <= set(TASKS)
    assert not set(TRITON_SAMPLE) & set(TRITON_INTERPRETER_SKIP)
    known = {name for _, name in KNOWN_FAILURES}
    assert not (set(CPP_SAMPLE) | set(TRITON_SAMPLE)) & known, "the default sample holds a known failure"
    assert known <= set(TASKS)
