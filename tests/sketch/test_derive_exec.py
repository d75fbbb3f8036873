"""Derived sketches compute what the task computes: pointwise tasks, constants and dataflow
included, run by the reference interpreter against the task's own Model."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from akg_rag.analysis import analyze_task
from akg_rag.lower.interp import run_sketch
from akg_rag.sketch import derive_sketch
from akg_rag.task import load_task

TASKS = Path(__file__).parents[1] / "analysis" / "tasks"

QUICK_GELU = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, y):
        return x * torch.sigmoid(1.702 * x) + torch.clamp(y, -0.5, 0.25) - 3.0 * torch.relu(x - y)

def get_inputs():
    return [torch.randn(4, 6), torch.randn(6)]

def get_init_inputs():
    return []
'''


def _check(path: Path) -> None:
    analysis = analyze_task(path)
    assert analysis.pointwise_expr is not None
    sk = derive_sketch(analysis)
    task = load_task(path)
    torch.manual_seed(0)
    model = task.model_cls(*task.get_init_inputs())
    inputs = [t for t in task.get_inputs() if isinstance(t, torch.Tensor)]
    want = model(*inputs)
    names = ["x"] + [f"x{i}" for i in range(1, len(inputs))]
    declared = {t.name for t in sk.tensors}
    tensors = {n: t for n, t in zip(names, inputs) if n in declared}
    y = torch.full_like(want, float("nan"))
    run_sketch(sk, {**tensors, "y": y})
    torch.testing.assert_close(y, want)


def test_quick_gelu_keeps_its_constants_and_dataflow(tmp_path):
    path = tmp_path / "quick_gelu_mix.py"
    path.write_text(QUICK_GELU)
    _check(path)


@pytest.mark.parametrize("stem", ["relu", "relu_clamp", "relu_maximum", "gelu_tanh_manual", "gelu_tanh"])
def test_zoo_pointwise_tasks(stem):
    _check(TASKS / f"{stem}.py")
