"""benchmarks/lower_suite.py and benchmarks/figures.py: task selection, resumption and figures.

No lowering or verification runs here (tests/lower/test_suite_tasks.py does that); rows are
written by hand the way a run appends them.
"""

from __future__ import annotations

import json
import math

import pytest

@pytest.fixture(scope="module")
def suite(load_bench):
    return load_bench("lower_suite")


def _row(problem, status, eager=None, compile_=None, partial=False):
    row = {"problem": problem, "kind": "lowered", "status": status, "partial": partial}
    if status == "correct" and eager:
        row.update(speedup_eager=eager, speedup_compile=compile_, candidate_ms=0.5)
    return row


def test_tasks_and_families(suite):
    names = [p.stem for p in suite.suite_tasks()]
    assert len(names) >= 70 and names == sorted(names)
    assert [p.stem for p in suite.suite_tasks(["gemm_*"])] == [n for n in names if n.startswith("gemm_")]
    assert suite.family("conv_transpose1d_upsample") == "conv"
    assert suite.family("conv2d_groupnorm") == "conv"
    assert suite.family("pool_max3d_cube") == "pool"
    assert suite.family("pw_quantize_round") == "pw"
    assert {suite.family(n) for n in names} == set(suite.FAMILIES)


def test_done_skips_a_line_cut_by_a_kill(suite, tmp_path):
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(_row("pw_a", "correct", 2.0, 1.0)) + "\n"
                       + json.dumps(_row("red_b", "incorrect")) + "\n" + '{"problem": "gemm_c", "sta')
    assert set(suite.done(results)) == {"pw_a", "red_b"}
    assert suite.done(tmp_path / "missing.jsonl") == {}


def test_figures_count_failures_as_one(suite):
    rows = {"pw_a": _row("pw_a", "correct", 4.0, 2.0), "pw_b": _row("pw_b", "incorrect"),
            "red_c": _row("red_c", "correct", 0.5, 0.25, partial=True),
            "red_d": _row("red_d", "lower_error", partial=True)}
    table, figures = suite.summary(rows)
    assert [r[0] for r in table[1:]] == ["pw_a", "pw_b", "red_c", "red_d"]
    pw, red, whole = figures["pw"], figures["red"], figures["suite"]
    assert (pw["problems"], pw["correct"], pw["partial"], pw["fast_1"]) == (2, 1, 0, 0.5)
    assert pw["geomean_eager"] == pytest.approx(2.0)          # sqrt(4 * 1)
    assert red["partial"] == 1                                 # only correct rows count as partial
    assert red["geomean_compile"] == pytest.approx(0.5)        # sqrt(0.25 * 1)
    assert whole["geomean_eager"] == pytest.approx(math.exp((math.log(4) + math.log(0.5)) / 4))
    assert whole["correct"] == 2 and whole["fast_1"] == 0.25


def test_report_prints_table_and_figures(suite, tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in [_row("scan_x", "correct", 1.5, 0.9),
                                                           _row("pool_y", "compile_error")]) + "\n")
    md = tmp_path / "out.md"
    assert suite.main(["--report", str(results), "--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "| scan_x" in out and "| pool_y" in out
    assert "suite: 1/2 correct (0 partial), fast_1 0.50, geomean 1.225x eager" in out
    assert "scan: 1/1 correct" in md.read_text()


def test_kernelbench_summary_uses_the_shared_figures(load_bench):
    kb = load_bench("kernelbench")
    by = {"level1/1_A": {"lowered": {**_row("level1/1_A", "correct", 3.0, 1.5), "level": 1}},
          "level1/2_B": {"lowered": {**_row("level1/2_B", "timeout"), "level": 1}},
          "level2/1_C": {"lowered": {**_row("level2/1_C", "correct", 0.8, 0.4), "level": 2},
                         "reused": {**_row("level2/1_C", "correct", 1.6, 0.8), "kind": "reused", "level": 2}}}
    rows, figures = kb.summary(by, "normal")
    assert figures["level1"]["geomean_eager"] == pytest.approx(math.sqrt(3.0))
    assert figures["level2"]["geomean_eager"] == pytest.approx(1.6)   # the faster correct kind
    _, lower_only = kb.summary(by, "lower")
    assert lower_only["level2"]["geomean_eager"] == pytest.approx(0.8)
    assert rows[0][:3] == ["problem", "kind", "status"]


def test_result_row_keeps_isolation_intervals_and_graph_timing(load_bench):
    from akg_rag.verify.result import Timings, VerifyResult

    figures = load_bench("figures")
    t = Timings(candidate_ms=0.01, eager_ms=0.02, speedup_eager=2.0, speedup_eager_low=1.8,
                speedup_eager_high=2.2, method="cuda_event", blocks=8, graph_method="cuda_graph",
                graph_candidate_ms=0.004, device="NVIDIA H200")
    row = figures.result_row(VerifyResult("correct", timings=t, isolation="unshare (uid 65534)"))
    assert row["isolation"] == "unshare (uid 65534)"
    assert (row["speedup_eager_low"], row["speedup_eager_high"], row["blocks"]) == (1.8, 2.2, 8)
    assert row["graph_method"] == "cuda_graph" and row["graph_candidate_ms"] == 0.004
    assert "graph_error" not in row and "compile_method" not in row      # empty fields left out
    json.dumps(row)
    wrong = figures.result_row(VerifyResult("incorrect", timings=t, isolation="uid"))
    assert "speedup_eager" not in wrong and wrong["isolation"] == "uid"
