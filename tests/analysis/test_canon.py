"""Canonicalisation: hand-written elementwise chains and patterns get the library's names."""

from __future__ import annotations

import pytest

from akg_rag.analysis import analyze_task

TEMPLATE = '''
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(64))

    def forward(self, x, y):
        return {expr}


def get_inputs():
    return [torch.randn(8, 64), torch.randn(8, 64)]


def get_init_inputs():
    return []
'''


def canonical(tmp_path, expr: str) -> list[str]:
    path = tmp_path / "task.py"
    path.write_text(TEMPLATE.format(expr=expr))
    return analyze_task(path).canonical_ops


@pytest.mark.parametrize(
    "expr, ops",
    [
        ("x * torch.sigmoid(x)", ["silu"]),
        ("F.silu(x)", ["silu"]),
        ("x / (1 + torch.abs(x))", ["softsign"]),
        ("F.softsign(x)", ["softsign"]),
        ("torch.clamp(x / 6 + 0.5, 0, 1)", ["hardsigmoid"]),
        ("x * torch.tanh(F.softplus(x))", ["mish"]),
        ("torch.where(x > 0, x, torch.exp(x) - 1)", ["elu"]),
        ("torch.where(x > 0, x, x * 0.01)", ["leaky_relu"]),
        ("0.5 * x * (1 + torch.erf(x / math.sqrt(2.0)))", ["gelu"]),
        ("torch.maximum(x, torch.zeros_like(x))", ["relu"]),
        ("torch.relu(x) * 2.0", ["relu", "mul"]),
        ("torch.sigmoid(F.gelu(x))", ["gelu", "sigmoid"]),
        ("torch.tanh(x) + y", ["tanh", "add"]),
        ("x * y", ["mul"]),
        ("torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)", ["softmax"]),
        ("x - torch.logsumexp(x, dim=1, keepdim=True)", ["log_softmax"]),
        ("x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * self.w", ["rms_norm", "mul"]),
        ("x.view(8, 8, 8).transpose(1, 2).contiguous().relu()", ["relu"]),
    ],
)
def test_canonical_ops(tmp_path, expr, ops):
    assert canonical(tmp_path, expr) == ops


def test_mismatched_softmax_dims_are_not_merged(tmp_path):
    # max over dim 0 but sum over dim 1 is not a softmax
    ops = canonical(tmp_path, "torch.exp(x - x.amax(0, keepdim=True)) / "
                              "torch.exp(x - x.amax(0, keepdim=True)).sum(1, keepdim=True)")
    assert "softmax" not in ops


def test_unused_work_is_ignored(tmp_path):
    assert canonical(tmp_path, "(torch.sigmoid(y), torch.relu(x))[1]") == ["relu"]
