"""Reuse refuses stored kernels that compute something else (the cases from the project's issue).

Each stored kernel is a seed kernel of the knowledge base, turned into the hit the retrieve node
hands the coder (real task analysis, real ``KernelRecord``); each task is a small hand-written
variant that an op-name match used to accept. The same seed kernel is accepted for its own task
at other sizes, so every refusal below is about what is computed, not about the kernel.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from akg_rag.graph.adapt import Adapted, adapt_kernel, mismatch, pick_and_adapt

from .conftest import KERNELS, hit_of, library_record


def stored_hit(name: str) -> dict:
    """The seed kernel ``name`` (cpp/cpu) as the retrieve node's hit dict."""
    return hit_of(library_record(name))


def task(tmp_path: Path, body: str, name: str = "task") -> tuple[str, dict]:
    """(source, analysis dict) of a hand-written task."""
    from akg_rag.analysis import analyze_task

    source = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + textwrap.dedent(body)
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return source, analyze_task(path).to_dict()


def own_task_small(name: str, monkeypatch) -> tuple[str, dict]:
    """The seed kernel's own task at its small (CPU) sizes: what reuse must still accept."""
    from akg_rag.analysis import analyze_task

    monkeypatch.setenv("AKG_TASK_SCALE", "small")
    path = KERNELS / name / "task.py"
    return path.read_text(), analyze_task(path).to_dict()


@pytest.mark.parametrize("name", ["batch_norm", "layer_norm", "matvec", "max_pool2d", "gemm_bias_relu"])
def test_each_seed_kernel_is_reused_for_its_own_task_at_other_sizes(name, monkeypatch):
    source, analysis = own_task_small(name, monkeypatch)
    hit = stored_hit(name)
    adapted, skipped = pick_and_adapt(source, analysis, [hit], tried=[])
    assert isinstance(adapted, Adapted), skipped


def test_batch_statistics_kernel_is_refused_for_an_inference_mode_task(tmp_path):
    _, analysis = task(tmp_path, """
        class Model(nn.Module):
            def __init__(self, num_features: int, eps: float = 1e-5):
                super().__init__()
                self.bn = nn.BatchNorm2d(num_features, eps=eps)
                self.bn.eval()
            def forward(self, x):
                return self.bn(x)
        def get_inputs():
            return [torch.randn(2, 4, 5, 6)]
        def get_init_inputs():
            return [4]
        """)
    why = mismatch(stored_hit("batch_norm"), analysis)
    assert "differently" in why and "training mode" in why
    assert "inference mode" in analysis["computation"]


def test_layer_norm_over_two_dims_is_refused_for_a_task_normalising_three(tmp_path):
    _, analysis = task(tmp_path, """
        class Model(nn.Module):
            def __init__(self, normalized_shape: tuple):
                super().__init__()
                self.ln = nn.LayerNorm(normalized_shape)
            def forward(self, x):
                return self.ln(x)
        def get_inputs():
            return [torch.randn(2, 3, 5, 6)]
        def get_init_inputs():
            return [(3, 5, 6)]
        """)
    hit = stored_hit("layer_norm")
    assert "the last 2 dimensions" in hit["computation"]
    assert "the last 3 dimensions" in analysis["computation"]
    assert mismatch(hit, analysis)


def test_matvec_kernel_is_refused_for_a_matmul(tmp_path):
    _, analysis = task(tmp_path, """
        class Model(nn.Module):
            def forward(self, A, B):
                return torch.matmul(A, B)
        def get_inputs():
            return [torch.randn(8, 16), torch.randn(16, 5)]
        def get_init_inputs():
            return []
        """)
    why = mismatch(stored_hit("matvec"), analysis)
    assert "size-1 dim" in why


@pytest.mark.parametrize("seed,layer", [("max_pool2d", "MaxPool1d"), ("avg_pool2d", "AvgPool1d")])
def test_2d_pooling_kernels_are_refused_for_1d_pooling(tmp_path, seed, layer):
    _, analysis = task(tmp_path, f"""
        class Model(nn.Module):
            def __init__(self, kernel_size: int, stride: int = None, padding: int = 0):
                super().__init__()
                self.pool = nn.{layer}(kernel_size, stride, padding)
            def forward(self, x):
                return self.pool(x)
        def get_inputs():
            return [torch.randn(2, 3, 20)]
        def get_init_inputs():
            return [3, 2, 1]
        """)
    assert analysis["op_name"] == seed.replace("2d", "1d")
    assert "1-D" in analysis["computation"]
    assert mismatch(stored_hit(seed), analysis)


def test_gemm_kernel_that_would_drop_bias_shape_is_refused(tmp_path):
    source, analysis = task(tmp_path, """
        class Model(nn.Module):
            def __init__(self, in_features, out_features, bias_shape):
                super().__init__()
                self.gemm = nn.Linear(in_features, out_features, bias=False)
                self.bias = nn.Parameter(torch.randn(bias_shape))
            def forward(self, x):
                return torch.relu(self.gemm(x) + self.bias)
        def get_inputs():
            return [torch.randn(4, 8)]
        def get_init_inputs():
            return [8, 6, (6,)]
        """)
    hit = stored_hit("gemm_bias_relu")
    assert mismatch(hit, analysis) == ""  # it computes the same thing ...
    reason = adapt_kernel(source, hit["code"], hit["id"])
    assert isinstance(reason, str) and "bias_shape" in reason  # ... but would use its own bias
    adapted, skipped = pick_and_adapt(source, analysis, [hit], tried=[])
    assert adapted is None and "bias_shape" in skipped[0]
