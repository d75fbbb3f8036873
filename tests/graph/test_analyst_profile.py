"""The analyst reads a real profiler kernel list recorded on the H200 (docs/results/h200/)."""

from __future__ import annotations

import json
from pathlib import Path

from akg_rag.graph.analyst import findings

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results" / "h200" / "triton_serial_timing_a.json"


def _recorded(name: str) -> dict:
    tasks = {t["name"]: t["result"] for t in json.loads(RESULTS.read_text())["tasks"]}
    return tasks[name]


def test_two_kernels_per_call_lead_to_a_fusion_recommendation():
    result = _recorded("cross_entropy_loss")
    assert len(result["profile"]) == 2
    out = findings({"flops": 10**6, "min_bytes": 10**7}, result, "BLOCK_SIZE = 1024\n", "triton")
    assert any(f.startswith("profiler: 2 kernel(s) per call") for f in out)
    assert any("fuse them" in f for f in out)


def test_a_single_kernel_gets_no_fusion_advice_but_its_name_is_reported():
    result = _recorded("conv2d")
    out = findings({"flops": 10**12, "min_bytes": 10**8}, result, "", "triton")
    assert any("conv2d_kernel" in f for f in out)
    assert not any("fuse them" in f for f in out)
