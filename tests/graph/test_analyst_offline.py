"""The analyst's offline profile: a Triton kernel compiled for sm_90 in the verifier's sandbox (no
GPU), its registers, spills, resident programs and loads turned into findings."""

from __future__ import annotations

import pytest

from akg_rag.graph.analyst import _offline, offline_findings

TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0


def get_inputs():
    return [torch.randn(8192, 4096)]


def get_init_inputs():
    return []
"""

# a kernel whose 64x64 f32 dot on one warp needs more registers than a thread may hold, and whose
# grid is a single program
HEAVY = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def heavy_kernel(x_ptr, y_ptr, n, BM: tl.constexpr):
    r = tl.arange(0, BM)
    a = tl.load(x_ptr + r[:, None] * BM + r[None, :])
    acc = tl.dot(a, a, input_precision="ieee")
    tl.store(y_ptr + r[:, None] * BM + r[None, :], acc)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        heavy_kernel[(1,)](x, y, x.numel(), BM=64, num_warps=1)
        return y
'''


def _report(**kw) -> dict:
    base = {"kernel": "k0_kernel", "num_warps": 8, "registers": 64, "spill_bytes": 0, "programs_per_sm": 4,
            "occupancy_limit": "registers", "waves": 12.5, "loads": 8, "vector_loads": 8, "error": ""}
    return dict(base, **kw)


def test_a_register_bound_kernel_is_told_to_free_registers():
    out = offline_findings([_report(registers=218, programs_per_sm=1, waves=496.5)], memory_bound=True)
    assert out[0].startswith("k0_kernel on sm_90 (compiled offline): 218 registers a thread, 0 bytes spilled, "
                             "1 program(s) a multiprocessor (registers, 8 of 64 warps), 496.5 waves")
    assert any("only 8 warps resident, limited by registers a thread" in f for f in out)
    assert not any("spills" in f for f in out)


def test_full_residency_and_vector_loads_give_no_advice():
    out = offline_findings([_report(num_warps=4, registers=32, programs_per_sm=16, occupancy_limit="warps")],
                           memory_bound=True)
    assert len(out) == 1 and "16 program(s) a multiprocessor (warps, 64 of 64 warps)" in out[0]


def test_spills_small_grids_scalar_loads_and_compile_errors_are_named():
    out = offline_findings([_report(spill_bytes=96, waves=0.12, vector_loads=0),
                            _report(kernel="k1_kernel", error="needs 300000 bytes of shared memory")],
                           memory_bound=True)
    assert any("k0_kernel spills registers" in f for f in out)
    assert any("grid fills 12.0% of the GPU once" in f for f in out)
    assert any("no global load is vectorised" in f for f in out)
    assert out[-1] == "k1_kernel does not compile for sm_90: needs 300000 bytes of shared memory"
    # scalar loads are advice for memory-bound kernels only
    assert not any("vectorised:" in f for f in offline_findings([_report(vector_loads=0)], memory_bound=False))


def test_machine_code_loads_are_named_and_mostly_scalar_ones_advised_on():
    """A window kernel whose taps ptxas splits into scalar pieces (level1/41's lowered form: 38
    loads, 12 vectors) against one that loads its span as vectors (14, all vectors)."""
    full = {"num_warps": 4, "registers": 32, "programs_per_sm": 16, "occupancy_limit": "warps"}
    split = offline_findings([_report(loads=44, vector_loads=12, sass_loads=38, sass_vector_loads=12, **full)],
                             memory_bound=True)
    assert "(machine code: 38 loads, 12 of them vectors)" in split[0]
    assert any("issues 38 global loads a thread, 26 of them scalar" in f for f in split)
    span = offline_findings([_report(loads=14, vector_loads=14, sass_loads=14, sass_vector_loads=12, **full)],
                            memory_bound=True)
    assert "(machine code: 14 loads, 12 of them vectors)" in span[0] and len(span) == 1
    # not for compute-bound kernels, nor where the machine code was not read
    assert len(offline_findings([_report(sass_loads=38, sass_vector_loads=12, **full)], memory_bound=False)) == 1
    assert "machine code" not in offline_findings([_report()], memory_bound=True)[0]


def test_a_lowered_window_with_scalar_taps_is_pointed_at_its_span_switch():
    """A lowered candidate whose tap loops have a span form it does not run (SPAN_MODE 1) and
    whose machine code splits taps: the analyst names the switch; not when the taps are not split,
    nor when the switch is already on."""
    from akg_rag.graph.analyst import span_switches

    full = {"num_warps": 4, "registers": 32, "programs_per_sm": 16, "occupancy_limit": "warps"}
    split = offline_findings([_report(loads=44, vector_loads=12, sass_loads=38, sass_vector_loads=12, **full)],
                             memory_bound=True)
    code = "K0_BW = 512\nK0_SPAN_MODE = 1\nK1_BLOCK = 64\n"
    (advice,) = span_switches(code, split)
    assert advice.startswith("K0_SPAN_MODE = 2:")
    assert span_switches(code.replace("SPAN_MODE = 1", "SPAN_MODE = 2"), split) == []
    assert span_switches(code, split[:1]) == []


@pytest.fixture(scope="module")
def task_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("analyst_offline") / "relu_scale.py"
    path.write_text(TASK)
    return path


def _skip_without_nvidia_backend(lines: list[str]) -> None:
    if lines and lines[0].startswith("offline compile for sm_90 unavailable") and "backends" in lines[0]:
        pytest.skip(f"this Triton cannot compile for NVIDIA offline: {lines[0]}")


def test_the_lowered_kernel_is_compiled_in_the_sandbox_and_read(task_file):
    from akg_rag.lower.assemble import lower_task

    code, _ = lower_task(task_file, "triton", "cuda")
    state = {"task_path": str(task_file), "analysis": {"flops": 2 * 8192 * 4096, "min_bytes": 8 * 8192 * 4096}}
    lines = _offline(state, code)
    _skip_without_nvidia_backend(lines)
    assert lines and lines[0].startswith("k0_kernel on sm_90 (compiled offline): ")
    assert "program(s) a multiprocessor (" in lines[0] and "global loads vectorised" in lines[0]


def test_a_spilling_candidate_is_reported_and_a_broken_one_is_a_finding_not_a_failure(task_file):
    state = {"task_path": str(task_file), "analysis": {"flops": 1, "min_bytes": 1}}
    lines = _offline(state, HEAVY)
    _skip_without_nvidia_backend(lines)
    assert lines[0].startswith("heavy_kernel on sm_90 (compiled offline): ") and "waves" in lines[0]
    assert any("heavy_kernel spills registers" in f for f in lines), lines
    assert any("heavy_kernel's grid fills 0." in f for f in lines), lines   # one program on 132 multiprocessors
    broken = _offline(state, "raise SystemExit('no model here')\n")
    assert len(broken) == 1 and broken[0].startswith("offline compile for sm_90 unavailable: RuntimeError")


def test_the_candidate_cannot_see_the_callers_files(task_file, tmp_path):
    """The compile runs the candidate's module: inside the sandbox, a file of the caller's is absent."""
    secret = tmp_path / "secret.txt"
    secret.write_text("caller's data")
    light = HEAVY.replace("acc = tl.dot(a, a, input_precision=\"ieee\")", "acc = a * 2.0")
    probe = light.replace("class ModelNew", f"assert not __import__('os').path.exists({str(secret)!r})\n\n\nclass ModelNew")
    assert probe != light and "a * 2.0" in probe
    from akg_rag.verify import sandbox

    if sandbox.choose(gpu=False).level in ("uid", "none"):
        pytest.skip("no filesystem namespace on this machine")
    lines = _offline({"task_path": str(task_file), "analysis": {}}, probe)
    _skip_without_nvidia_backend(lines)
    assert lines[0].startswith("heavy_kernel on sm_90"), lines


def test_the_analyst_node_puts_the_compilers_facts_after_the_bound_line_only_when_asked(task_file):
    from types import SimpleNamespace

    from akg_rag.graph.analyst import analyst
    from akg_rag.graph.context import Context

    light = HEAVY.replace("acc = tl.dot(a, a, input_precision=\"ieee\")", "acc = a * 2.0")
    state = {"task_path": str(task_file), "dsl": "triton", "backend": "cuda",
             "analysis": {"flops": 10**6, "min_bytes": 10**8}, "best": {"code": light, "timings": {}}}
    plain = analyst(state, SimpleNamespace(context=Context(offline_profile=False)))["recommendations"]
    assert not any("compiled offline" in r for r in plain)
    asked = analyst(state, SimpleNamespace(context=Context(offline_profile=True)))["recommendations"]
    _skip_without_nvidia_backend(asked[1:2])
    assert asked[0] == plain[0] and asked[0].startswith("memory-bound")
    assert asked[1].startswith("heavy_kernel on sm_90 (compiled offline): ")
    # the C++ DSL is not compiled for sm_90
    cpp = analyst(dict(state, dsl="cpp"), SimpleNamespace(context=Context(offline_profile=True)))["recommendations"]
    assert not any("compiled offline" in r for r in cpp)


def test_the_generate_flag_reaches_the_context_and_a_resumed_run_keeps_it():
    import argparse

    from akg_rag.cli import generate

    parser = argparse.ArgumentParser()
    generate.register(parser.add_subparsers())
    args = parser.parse_args(["generate", "task.py", "--dsl", "triton", "--backend", "cuda", "--offline-profile"])
    assert generate._context(generate._settings(args, {}), "t1").offline_profile is True
    plain = parser.parse_args(["generate", "task.py", "--dsl", "triton", "--backend", "cuda"])
    assert generate._context(generate._settings(plain, {}), "t1").offline_profile is False
    # --resume without the flag: the saved run's setting stands
    assert generate._context(generate._settings(plain, {"offline_profile": True}), "t1").offline_profile is True
