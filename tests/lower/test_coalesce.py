"""Dimension coalescing (akg_rag/lower/coalesce.py): adjacent dims every tensor treats alike merge,
so kernels split each flat index into fewer coordinates; every coalesced program still computes
its task (emitted sketches run by the reference interpreter against the task's forward)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from akg_rag.lower.capture import capture
from akg_rag.lower.coalesce import coalesce_program
from akg_rag.lower.partition import partition
from akg_rag.lower.region import KernelStep, ViewStep

from .conftest import assert_program_matches, forward_task, reference_and_program

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "tasks"
TASKS = sorted(p.stem for p in SUITE.glob("*.py"))



def _coalesced(path: Path):
    return coalesce_program(partition(capture(path)))


def _regions(prog):
    return [s.region for s in prog.steps if isinstance(s, KernelStep)]


def test_a_norm_over_a_whole_4d_tensor_becomes_one_dim(write_task):
    path = write_task(forward_task("return t[0] / torch.norm(t[0], p='fro')", "[torch.randn(2, 3, 4, 5)]"))
    before = _regions(partition(capture(path)))
    prog = _coalesced(path)
    assert [r.shape for r in before] == [(2, 3, 4, 5)] * len(before)
    assert all(r.shape == (120,) for r in _regions(prog))
    assert_program_matches(path, prog)


def test_per_channel_operands_keep_their_dim_and_the_spatial_dims_merge(write_task):
    path = write_task(forward_task("return torch.relu(t[0] * t[1].view(1, -1, 1, 1) + t[2])",
                            "[torch.randn(2, 3, 4, 5), torch.randn(3), torch.randn(2, 3, 4, 5)]"))
    (r,) = _regions(_coalesced(path))
    assert r.shape == (2, 3, 20)
    assert sorted(v.shape for v in r.inputs) == [(1, 3, 1), (2, 3, 20), (2, 3, 20)]
    assert_program_matches(path, _coalesced(path))


def test_reduced_and_kept_dims_merge_only_among_themselves(write_task):
    path = write_task(forward_task("return torch.softmax(t[0], dim=-1), t[0].sum(dim=(2, 3)), t[0].mean(dim=(0, 1))",
                            "[torch.randn(2, 3, 4, 5)]"))
    prog = _coalesced(path)
    got = sorted((r.shape, r.dims) for r in _regions(prog))
    assert got == sorted([((24, 5), (1,)), ((6, 20), (1,)), ((6, 20), (0,))]), got
    assert_program_matches(path, prog)


def test_a_dim_of_extent_one_merges_with_reduced_and_kept_neighbours(write_task):
    """The instance norm's view: [1, N*C, H*W] reduced over dims 0 and 2 is [N*C, H*W] reduced
    over dim 1; a reduction over extents of 1 only keeps a reduced dim."""
    path = write_task(forward_task(
        "return F.instance_norm(t[0]), t[0].view(1, 6, 20).sum(dim=(0, 2)), t[0].view(6, 1, 20).amax(dim=1)",
        "[torch.randn(2, 3, 4, 5)]"))
    prog = _coalesced(path)
    got = sorted((r.shape, r.dims) for r in _regions(prog))
    assert ((6, 20), (1,)) in got and all(r.dims for r in _regions(prog)), got
    assert ((6, 1, 20), (1,)) in got, got   # over an extent of 1 only: kept as it is
    assert_program_matches(path, prog)


def test_a_permuted_input_keeps_its_dims(write_task):
    """Merging the full dims of a strided view would make the host's reshape copy it."""
    path = write_task(forward_task("return t[0].permute(0, 2, 1, 3) * 2.0 + t[1]",
                            "[torch.randn(2, 3, 4, 5), torch.randn(2, 4, 3, 5)]"))
    prog = _coalesced(path)
    (r,) = _regions(prog)
    assert r.shape == (2, 4, 3, 5)
    assert any(isinstance(s, ViewStep) and s.op == "permute" for s in prog.steps)
    assert_program_matches(path, prog)


@pytest.mark.parametrize("name", TASKS)
def test_every_suite_task_computes_the_same_coalesced(name, monkeypatch):
    monkeypatch.setenv("AKG_TASK_SCALE", "small")
    path = SUITE / f"{name}.py"
    refs, outs = reference_and_program(path, _coalesced(path))
    for r, o in zip(refs, outs, strict=True):
        assert o.shape == r.shape and o.dtype == r.dtype
        if r.dtype in (torch.float16, torch.bfloat16):
            torch.testing.assert_close(o, r)  # the dtype's own tolerance
        else:
            torch.testing.assert_close(o, r, atol=1e-4, rtol=1e-4)


def test_a_given_sketch_binds_to_the_coalesced_or_to_the_partitioned_region(write_task):
    """The designer sees the coalesced plan (``sketch_only``) and may answer with a sketch of it; a
    sketch written against the region as partitioned (its own names and dims) binds too."""
    from akg_rag.lower.assemble import lower_task

    path = write_task(forward_task("return torch.tanh(t[0]) * 3.0", "[torch.randn(4, 6, 5)]"))
    _, planned = lower_task(path, "cpp", "cpu", sketch_only=True)
    (k,) = planned.kernels
    assert "in0_m[D0]" in k.sketch                      # [4, 6, 5] coalesced to [120]
    _, same = lower_task(path, "cpp", "cpu", sketch_only=True, sketches={"k0": k.sketch})
    assert same.kernels[0].sketch == k.sketch and "in0_m[120] = in0.reshape" in same.program
    prog = partition(capture(path))
    raw = [s for s in prog.steps if isinstance(s, KernelStep)][0]
    from akg_rag.lower.emit import emit_sketch

    as_partitioned = emit_sketch(raw.region, "k0")
    assert "in0[D0, D1, D2]" in as_partitioned
    _, kept = lower_task(path, "cpp", "cpu", sketch_only=True, sketches={"k0": as_partitioned})
    assert kept.kernels[0].sketch == as_partitioned and "reshape" not in kept.program
