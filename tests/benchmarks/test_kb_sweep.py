"""benchmarks/kb_sweep.py: counts per level and target and the failure list, from result lines
written the way lower_suite.py appends them (no lowering or verification runs here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def sweep(load_bench):
    return load_bench("kb_sweep")


def _write(path: Path, rows: list[dict], cut: bool = False) -> None:
    text = "".join(json.dumps(r) + "\n" for r in rows)
    path.write_text(text + ('{"problem": "9_cut' if cut else ""))


def test_summary_counts_and_failures(sweep, tmp_path):
    _write(tmp_path / "level1_triton.jsonl", [
        {"problem": "2_Relu", "status": "correct"},
        {"problem": "10_Mean", "status": "incorrect", "feedback": "\noutput 0: 1 of 8 elements differ\nmore"},
        {"problem": "1_Matmul", "status": "correct", "partial": True},
        {"problem": "10_Mean", "status": "correct"},   # a rerun's line wins
    ], cut=True)
    _write(tmp_path / "level2_cpp.jsonl", [{"problem": "3_Conv", "status": "lower_error", "feedback": "ValueError: x"}])
    counts, failures = sweep.summarise(tmp_path)
    by = {(c["level"], c["target"]): c for c in counts}
    assert by[("level1", "triton")]["problems"] == 3 and by[("level1", "triton")]["correct"] == 3
    assert by[("level1", "triton")]["partial"] == 1
    assert by[("level2", "cpp")]["statuses"] == {"lower_error": 1}
    assert failures == [{"level": "level2", "target": "cpp", "problem": "3_Conv", "status": "lower_error",
                         "feedback": "ValueError: x"}]
    md = tmp_path / "out.md"
    assert sweep.main(["report", str(tmp_path), "--markdown", str(md)]) == 0
    text = md.read_text()
    assert "| level1 | triton | 3 | 3 | 1 | - |" in text and "| level2 | cpp | 3_Conv | lower_error |" in text


PROBLEM = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.relu(x * self.scale) + 1.0


def get_inputs():
    return [torch.randn(4, 33)]


def get_init_inputs():
    return [0.5]
"""


def test_run_lowers_and_verifies_a_problem_folder(sweep, tmp_path):
    """A real (Triton-interpreter) run over a one-problem level folder: the run builds its options
    from lower_suite's parser, so an option added there cannot break it."""
    (tmp_path / "kb" / "level1").mkdir(parents=True)
    (tmp_path / "kb" / "level1" / "1_scaled_relu.py").write_text(PROBLEM)
    ns = sweep.suite_args()
    assert ns.cores == "generated" and ns.trials == 5
    args = sweep.main.__globals__["argparse"].Namespace(
        problems=str(tmp_path / "kb"), results=str(tmp_path / "res"), levels=[1], targets=["triton"],
        only=None, jobs=1, trials=1, timeout=300.0)
    assert sweep.run(args) == 0
    rows = [json.loads(line) for line in (tmp_path / "res" / "level1_triton.jsonl").read_text().splitlines()]
    assert [(r["problem"], r["status"]) for r in rows] == [("1_scaled_relu", "correct")], rows
