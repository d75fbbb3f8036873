"""Hand-written forms are recognised as the library op they compute (mse_loss, argmin)."""

from __future__ import annotations

import textwrap

from akg_rag.analysis import analyze_task

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
INPUTS = "\ndef get_inputs():\n    return [torch.randn(32, 500), torch.randn(32, 500)]\n\ndef get_init_inputs():\n    return []\n"


def _task(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body) + INPUTS)
    return analyze_task(path)


def test_mean_of_squared_difference_is_mse_loss(tmp_path):
    library = _task(tmp_path, "lib", """
        class Model(nn.Module):
            def forward(self, a, b):
                return F.mse_loss(a, b)
        """)
    by_hand = _task(tmp_path, "hand", """
        class Model(nn.Module):
            def forward(self, predictions, targets):
                diff = predictions - targets
                return (diff * diff).mean()
        """)
    assert by_hand.op_name == library.op_name == "mse_loss"
    assert by_hand.op_type == "loss"
    assert by_hand.computation == library.computation


def test_a_partial_mean_of_squares_is_not_a_loss(tmp_path):
    rowwise = _task(tmp_path, "rows", """
        class Model(nn.Module):
            def forward(self, a, b):
                return torch.mean((a - b) ** 2, dim=1)
        """)
    assert rowwise.op_name != "mse_loss"
    assert "loss" not in rowwise.op_types


def test_indices_of_a_min_over_a_dim_is_an_argmin(tmp_path):
    library = _task(tmp_path, "argmin", """
        class Model(nn.Module):
            def forward(self, a, b):
                return torch.argmin(a + b, dim=1)
        """)
    indices = _task(tmp_path, "indices", """
        class Model(nn.Module):
            def forward(self, a, b):
                return torch.min(a + b, dim=1).indices
        """)
    values = _task(tmp_path, "values", """
        class Model(nn.Module):
            def forward(self, a, b):
                return torch.min(a + b, dim=1).values
        """)
    assert indices.op_name == library.op_name
    assert indices.computation == library.computation
    assert values.op_name != library.op_name
