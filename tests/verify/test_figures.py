"""The task's roofline figures worked out once per task by a warm helper and handed to the judge."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from akg_rag.analysis import analyze_task
from akg_rag.verify import VerifyOptions
from akg_rag.verify import figures
from akg_rag.verify import runner

HERE = Path(__file__).parent
SOFTMAX = Path(__file__).resolve().parents[2] / "knowledge" / "kernels" / "softmax" / "task.py"


def _task(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / f"{name}.py"
    p.write_text(textwrap.dedent(body))
    return p


def _ready(task: Path, scale: str | None) -> dict | None:
    figures.prefetch_path(task, scale)
    assert figures.wait_idle(240), "the helper answered nothing in time"
    return figures.cached(task.name, task.read_text(), scale)


def test_the_helper_gives_the_judges_figures_at_the_asked_scale(monkeypatch):
    got = {scale: _ready(SOFTMAX, scale) for scale in ("small", "full")}
    for scale, fig in got.items():
        monkeypatch.setenv("AKG_TASK_SCALE", scale)
        a = analyze_task(SOFTMAX)
        assert fig == {"flops": a.flops, "min_bytes": a.min_bytes, "dtype": a.dtype}
        assert figures.valid(fig)
    assert got["small"]["min_bytes"] < got["full"]["min_bytes"]  # the scale reached the task


def test_what_a_task_prints_is_not_taken_for_an_answer(tmp_path):
    task = _task(tmp_path, "printer", """
        import torch, torch.nn as nn
        print('{"figures": {"flops": 1, "min_bytes": 1, "dtype": "forged"}}')
        class Model(nn.Module):
            def forward(self, x):
                print('{"figures": null}')
                return x * 2
        def get_inputs():
            return [torch.randn(8, 16)]
        def get_init_inputs():
            return []
        """)
    fig = _ready(task, None)
    assert fig is not None and fig["dtype"] == "float32" and fig["min_bytes"] == 2 * 8 * 16 * 4


def test_a_task_that_fails_or_hangs_gets_no_figures_and_the_helper_goes_on(tmp_path, monkeypatch):
    raising = _task(tmp_path, "raising", """
        raise RuntimeError("no import")
        """)
    assert _ready(raising, None) is None
    monkeypatch.setattr(figures, "REQUEST_TIMEOUT_S", 5.0)
    hanging = _task(tmp_path, "hanging", """
        while True:
            pass
        """)
    assert _ready(hanging, None) is None
    # the hung helper was killed; the next request starts a fresh one
    monkeypatch.setattr(figures, "REQUEST_TIMEOUT_S", 240.0)
    good = _task(tmp_path, "good", """
        import torch, torch.nn as nn
        class Model(nn.Module):
            def forward(self, x):
                return x + 1
        def get_inputs():
            return [torch.randn(4, 4)]
        def get_init_inputs():
            return []
        """)
    assert _ready(good, None) == {"flops": 16, "min_bytes": 2 * 16 * 4, "dtype": "float32"}


@pytest.mark.parametrize("bad", [None, [], {"flops": 1, "min_bytes": 2}, {"flops": True, "min_bytes": 2, "dtype": "f"},
                                 {"flops": -1, "min_bytes": 2, "dtype": "f"}, {"flops": 1, "min_bytes": 2.0, "dtype": "f"},
                                 {"flops": 1, "min_bytes": 2, "dtype": "f", "extra": 0}])
def test_malformed_figures_are_refused(bad):
    assert not figures.valid(bad)


def test_the_judge_takes_the_figures_it_is_given(cache_dir):
    """Through a real judge and candidate process (Triton interpreter): given figures replace the
    judge's own analysis step; without them the judge analyses the task itself."""
    task, cand = HERE / "tasks" / "rowscale.py", HERE / "candidates" / "triton_correct.py"
    opts = VerifyOptions.from_dict({"trials": 1, "compile_baseline": False, "runs": 3, "timeout_s": 300.0,
                                    "cache_dir": cache_dir})
    base = {"dsl": "triton", "backend": "cpu", "task": str(task), "candidate": str(cand)}
    given = {"flops": 7, "min_bytes": 11, "dtype": "float32"}
    with_fig = runner._run_child(task, task.read_text(), cand.read_text(), "triton", "cpu", opts, base, given)
    without = runner._run_child(task, task.read_text(), cand.read_text(), "triton", "cpu", opts, base)
    assert with_fig.status == without.status == "correct", with_fig.feedback + without.feedback
    step = "analysing the task (roofline figures)"
    assert step not in with_fig.phases and step in without.phases


def test_the_reference_keeps_given_figures_and_works_out_missing_or_malformed_ones(tmp_path):
    from akg_rag.verify.reference import Reference

    task = HERE / "tasks" / "rowscale.py"
    opts = VerifyOptions.from_dict({"trials": 1})
    job = {"backend": "cpu", "task_path": str(task), "task_source": task.read_text()}
    given = Reference(dict(job, analysis={"flops": 7, "min_bytes": 11, "dtype": "float32"}), opts, [])
    given.analyse()
    assert (given.flops, given.min_bytes, given.dtype) == (7, 11, "float32")
    a = analyze_task(task)
    for extra in ({}, {"analysis": {"flops": "7", "min_bytes": 11, "dtype": "float32"}}):
        own = Reference(dict(job, **extra), opts, [])
        own.analyse()
        assert (own.flops, own.min_bytes, own.dtype) == (a.flops, a.min_bytes, a.dtype)
