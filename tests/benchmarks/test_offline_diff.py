"""benchmarks/offline_diff.py: two candidate trees compiled for sm_90 without a GPU, compared launch
by launch (run as the command, in a child without TRITON_INTERPRET)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from akg_rag.lower.assemble import lower_task

ROOT = Path(__file__).resolve().parents[2]

TASK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x).sum(dim=1)


def get_inputs():
    return [torch.randn(4096, 3000)]


def get_init_inputs():
    return []
"""


def test_only_changed_candidates_are_compiled_and_their_launches_compared(tmp_path):
    kb = tmp_path / "kb"
    (kb / "level1").mkdir(parents=True)
    task = kb / "level1" / "1_relu_rows.py"
    task.write_text(TASK)
    source, _ = lower_task(task, "triton", "cuda")
    for tree, text in (("old", source), ("new", source.replace("K0_NUM_WARPS = ", "K0_NUM_WARPS = 2 * "))):
        (tmp_path / tree / "level1" / "1_relu_rows").mkdir(parents=True)
        (tmp_path / tree / "level1" / "1_relu_rows" / "lowered.py").write_text(text)
        (tmp_path / tree / "level1" / "2_same").mkdir(parents=True)
        (tmp_path / tree / "level1" / "2_same" / "lowered.py").write_text("unchanged")
    assert "K0_NUM_WARPS = 2 * " in (tmp_path / "new/level1/1_relu_rows/lowered.py").read_text()
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    out = tmp_path / "diff.jsonl"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "offline_diff.py"), str(kb),
                          str(tmp_path / "old"), str(tmp_path / "new"), "--json", str(out)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert run.stdout.startswith("1 candidates differ")
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["candidate"] == "level1/1_relu_rows/lowered.py"
    (old,), (new,) = row["old"], row["new"]
    assert old["instructions"] > 0 and old["registers"] > 0 and not old["error"] and not new["error"]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["launches"] == 1 and summary["errors"] == 0
    # programs a multiprocessor holds, per launch, in the line and in the tally
    assert old["programs_per_sm"] >= 1 and new["programs_per_sm"] >= 1
    assert f"/{old['programs_per_sm']}p/" in run.stdout
    moved = old["programs_per_sm"] != new["programs_per_sm"]
    assert summary["more_resident"] + summary["fewer_resident"] == int(moved)
    # machine-code loads a thread issues, per launch and tallied (twice the warps, same tile)
    assert old["sass_loads"] > 0 and f"p/{old['sass_loads']}L -> " in run.stdout
    assert summary["more_loads"] + summary["fewer_loads"] == int(old["sass_loads"] != new["sass_loads"])
