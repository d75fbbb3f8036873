"""The library core mode (akg_rag/lower/library.py): GEMM and conv cores stay torch calls, the tail
is generated, the report names the cores and marks the candidate partial.

Fast: every GEMM and conv task of the suite (benchmarks/tasks, small scale) partitioned in library
mode computes what the task computes, its kernels run by the sketch interpreter and its cores by
torch; the bias folding rules; single-op and core-less tasks have no library form. End to end: a
conv+tail and a gemm+tail task lowered in library mode and verified (5 trials, sandboxed) as Triton
under the interpreter, and as C++ on the CPU: the conv task in the default run (one extension
build), the gemm task under ``-m slow`` (a second build).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akg_rag.lower.assemble import NoLibraryForm, lower_task
from akg_rag.lower.capture import capture
from akg_rag.lower.listing import format_program
from akg_rag.lower.partition import partition
from akg_rag.lower.region import KernelStep, LibraryStep

from .conftest import assert_program_matches

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "tasks"
# a matrix-vector product is a reduction, not a GEMM core (tests/lower/test_matvec.py)
CORE_TASKS = sorted(p.stem for p in SUITE.glob("*.py") if p.stem.startswith(("gemm_", "conv"))
                    and p.stem != "gemm_matvec_bias")
# one core and nothing after it: no library form (it would be pure torch)
SINGLE_OP = {"gemm_matmul_plain", "gemm_addmm_half", "gemm_transposed_both", "conv2d_grouped_func",
             "conv1d_strided_pad", "conv2d_asymmetric_stride", "conv_transpose1d_upsample"}
# (target) -> dsl, backend of the lowering, backend of the verifier
TARGETS = {"cpp": ("cpp", "cpu", "cpu"), "triton": ("triton", "cuda", "cpu")}
# a conv whose bias folds into a reduction's prologue; a linear whose bias folds into a layer norm
E2E = ["conv2d_spatial_mean", "gemm_linear_layernorm"]


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setenv("AKG_TASK_SCALE", "small")


def _program(name: str):
    path = SUITE / f"{name}.py"
    return path, partition(capture(path, path.read_text()), "library")


@pytest.mark.parametrize("name", CORE_TASKS)
def test_library_partition_computes_the_task(name, small):
    path, prog = _program(name)
    library = [s for s in prog.steps if isinstance(s, LibraryStep)]
    kernels = [s for s in prog.steps if isinstance(s, KernelStep)]
    listing = format_program(prog)
    assert library, f"{name}: no library core\n{listing}"
    assert all(s.kind == ("conv" if name.startswith("conv") else "gemm") for s in library), listing
    assert not [k for k in kernels if k.region.kind in ("gemm", "conv")], listing
    assert (not kernels) == (name in SINGLE_OP), listing
    assert_program_matches(path, prog)


def _library_ops(name: str) -> list[tuple[str, bool]]:
    """(aten op, has a bias argument) of each library step."""
    _, prog = _program(name)
    out = []
    for s in prog.steps:
        if isinstance(s, LibraryStep):
            bias = s.args[2] is not None if s.kind == "conv" else s.op == "aten.addmm.default"
            out.append((s.op, bias))
    return out


def test_bias_folds_into_the_tail_only_where_a_kernel_reads_the_core(small):
    # nn.Linear + gelu: mm, the bias added in the gelu kernel
    assert _library_ops("gemm_linear_gelu") == [("aten.mm.default", False)]
    # conv + bias + spatial mean: the bias joins the reduction's prologue
    assert _library_ops("conv2d_spatial_mean") == [("aten.convolution.default", False)]
    # conv + group norm reads the conv output through a reshape: the bias stays in the conv
    assert _library_ops("conv2d_groupnorm") == [("aten.convolution.default", True)]
    # float16 addmm keeps its bias (one rounding); a lone conv keeps its own
    assert _library_ops("gemm_addmm_half") == [("aten.addmm.default", True)]
    assert _library_ops("conv2d_grouped_func") == [("aten.convolution.default", True)]


def test_report_names_the_library_core_and_is_partial(small):
    path = SUITE / "gemm_linear_gelu.py"
    _, report = lower_task(path, "cpp", "cpu", sketch_only=True, cores="library")
    assert report.cores == "library" and report.library == ["aten.mm.default"]
    assert report.partial and report.fallbacks == []
    assert [k.kind for k in report.kernels] == ["pointwise"]
    assert "library t_addmm" in report.program
    source, generated = lower_task(path, "triton", "cuda", cores="generated")
    assert generated.library == [] and not generated.partial
    assert [k.kind for k in generated.kernels] == ["gemm"]
    source, _ = lower_task(path, "triton", "cuda", cores="library")
    assert "torch.ops.aten.mm.default(" in source and "# library gemm core" in source
    assert "@triton.jit" in source


@pytest.mark.parametrize("name", ["conv2d_grouped_func", "gemm_matmul_plain", "pw_quick_gelu_formula"])
def test_single_op_and_core_less_tasks_have_no_library_form(name, small):
    with pytest.raises(NoLibraryForm):
        lower_task(SUITE / f"{name}.py", "triton", "cuda", cores="library")
    source, _ = lower_task(SUITE / f"{name}.py", "triton", "cuda")  # the generated form stays
    assert "@triton.jit" in source


@pytest.mark.parametrize("tail, kept", [("torch.tril(y)", False), ("torch.triu(y, diagonal=1)", False),
                                        ("torch.tril(y) * 2.0", True), ("torch.relu(y)", True)])
def test_a_tail_that_only_masks_the_core_has_no_library_form(write_task, tail, kept):
    """tril(a @ b) with the GEMM a library call leaves a kernel that only copies or zeroes
    elements: the verifier would reject it as no work beside torch's, so there is no library form
    (the generated one stays); a tail that computes keeps it."""
    from .conftest import forward_task

    path = write_task(forward_task(f"y = t[0] @ t[1]; return {tail}",
                                   "[torch.randn(24, 40), torch.randn(40, 24)]"), "masked")
    if kept:
        _, report = lower_task(path, "triton", "cuda", cores="library")
        assert report.library == ["aten.mm.default"]
    else:
        with pytest.raises(NoLibraryForm, match="only moves data"):
            lower_task(path, "triton", "cuda", cores="library")
    source, _ = lower_task(path, "triton", "cuda")
    assert "@triton.jit" in source


def test_unknown_core_mode_is_a_config_error(small):
    from akg_rag.errors import ConfigError

    with pytest.raises(ConfigError, match="generated, library"):
        lower_task(SUITE / "gemm_linear_gelu.py", "cpp", "cpu", cores="vendor")


def test_cli_writes_the_library_form(tmp_path, small, capsys):
    from akg_rag.lower.__main__ import main

    out = tmp_path / "out"
    assert main([str(SUITE / "conv2d_bn_eval_relu.py"), "--dsl", "cpp", "--backend", "cpu",
                 "--cores", "library", "--out", str(out)]) == 0
    assert "library cores: aten.convolution.default" in capsys.readouterr().out
    assert "torch.ops.aten.convolution.default(" in (out / "candidate.py").read_text()
    assert main([str(SUITE / "gemm_matmul_plain.py"), "--dsl", "cpp", "--backend", "cpu",
                 "--cores", "library", "--out", str(tmp_path / "none")]) == 2
    assert "nothing is left to generate" in capsys.readouterr().err


# ---- end to end: lower in library mode, then verify ------------------------------------------

def _e2e_case(target: str, name: str):
    slow = target == "cpp" and name != E2E[0]  # one C++ build in the default run
    return pytest.param((target, name), id=f"{target}-{name}", marks=[pytest.mark.slow] if slow else [])


E2E_CASES = [_e2e_case(t, n) for t in sorted(TARGETS) for n in E2E]


@pytest.fixture(scope="module")
def verdicts(request):
    """Every selected (target, task) lowered in library mode and verified in one batch."""
    import os

    from akg_rag.verify.executor import LocalExecutor, make_job

    selected = []
    for item in request.session.items:
        spec = getattr(item, "callspec", None)
        if getattr(item, "originalname", None) == "test_library_candidate_verifies" and spec:
            selected.append(spec.params["case"])

    before = os.environ.get("AKG_TASK_SCALE")
    os.environ["AKG_TASK_SCALE"] = "small"
    try:
        out, jobs = {}, []
        for target, name in selected:
            dsl, backend, verify_backend = TARGETS[target]
            path = SUITE / f"{name}.py"
            source, report = lower_task(path, dsl, backend, cores="library")
            out[(target, name)] = {"report": report}
            jobs.append(make_job(str(path), candidate_source=source, dsl=dsl, backend=verify_backend,
                                 options={"scale": "small", "timing": False, "timeout_s": 900}))
    finally:
        if before is None:
            os.environ.pop("AKG_TASK_SCALE", None)
        else:
            os.environ["AKG_TASK_SCALE"] = before
    for key, result in zip(list(out), LocalExecutor(jobs=2).map(jobs)):
        out[key]["result"] = result
    return out


@pytest.mark.parametrize("case", E2E_CASES)
def test_library_candidate_verifies(case, verdicts):
    target, name = case
    verdict = verdicts[case]
    result = verdict["result"]
    assert result.status == "correct", f"{target}/{name}: {result.status}\n{result.feedback}"
    assert not result.guard_violations, result.violation_names()
    core = "convolution" if name.startswith("conv") else "mm"
    # the verifier sees torch compute the core and nothing else: partial, the core named
    assert result.partial and result.partial_ops == [core], result.partial_ops
    assert verdict["report"].library == [f"aten.{core}.default"]


def test_cli_verifies_a_triton_candidate_on_the_cpu_when_asked(tmp_path, small, capsys):
    """``--verify --verify-backend cpu``: the Triton/CUDA candidate is checked under Triton's
    interpreter on a machine without a GPU; without the flag there, the error names it."""
    from akg_rag.lower.__main__ import main

    task = str(SUITE / "gemm_linear_gelu.py")
    out = tmp_path / "out"
    assert main([task, "--dsl", "triton", "--backend", "cuda", "--verify", "--verify-backend", "cpu",
                 "--trials", "1", "--no-store", "--out", str(out)]) == 0, capsys.readouterr().err
    assert "verdict: correct" in capsys.readouterr().out
    import torch

    if not torch.cuda.is_available():
        assert main([task, "--dsl", "triton", "--backend", "cuda", "--verify", "--trials", "1", "--no-store",
                     "--out", str(out)]) == 2
        assert "--verify-backend cpu" in capsys.readouterr().err
