"""benchmarks/kernelbench.py: ``prepare`` writes the lowered and library candidates, ``run`` takes
the library kind, and ``report`` scores the right kinds per mode.

The "KernelBench" folder here is a fixture built from the project's own suite (benchmarks/tasks,
small scale), never KernelBench files. Nothing is built or verified: ``prepare`` only generates
source, and ``run`` meets a missing candidate; report rows are written by hand.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "benchmarks" / "tasks"


@pytest.fixture(scope="module")
def kb_bench(load_bench):
    return load_bench("kernelbench")


@pytest.fixture
def kb(tmp_path, monkeypatch) -> Path:
    """A KernelBench-shaped folder: level2/ with a multi-op task (linear + gelu) and a single-op one."""
    monkeypatch.setenv("AKG_TASK_SCALE", "small")
    level = tmp_path / "kb" / "level2"
    level.mkdir(parents=True)
    shutil.copy(SUITE / "gemm_linear_gelu.py", level / "1_linear_gelu.py")
    shutil.copy(SUITE / "gemm_matmul_plain.py", level / "2_matmul.py")
    return tmp_path / "kb"


def test_prepare_writes_a_library_candidate_for_a_multi_op_task_only(kb_bench, kb, tmp_path, capsys):
    out = tmp_path / "cands"
    assert kb_bench.main(["prepare", str(kb), "--levels", "2", "--dsl", "cpp", "--backend", "cpu",
                          "--out", str(out)]) == 0
    multi, single = out / "level2" / "1_linear_gelu", out / "level2" / "2_matmul"
    assert (multi / "lowered.py").is_file() and (single / "lowered.py").is_file()
    library = (multi / "library.py").read_text()
    assert "torch.ops.aten.mm.default(" in library and "load_inline" in library
    info = json.loads((multi / "library.json").read_text())
    assert info["library"] == ["aten.mm.default"] and info["partial"] and info["cores"] == "library"
    assert not (single / "library.py").exists()
    assert "nothing is left to generate" in json.loads((single / "library.json").read_text())["none"]
    log = capsys.readouterr().out
    assert "1_linear_gelu: ok; library: ok" in log and "2_matmul: ok; library: none" in log


def test_prepare_of_selected_problems_leaves_the_others_alone(kb_bench, kb, tmp_path, capsys):
    out = tmp_path / "cands"
    assert kb_bench.main(["prepare", str(kb), "--levels", "2", "--dsl", "cpp", "--backend", "cpu",
                          "--out", str(out), "--problems", "2"]) == 0
    assert (out / "level2" / "2_matmul" / "lowered.py").is_file()
    assert not (out / "level2" / "1_linear_gelu").exists()
    log = capsys.readouterr().out
    assert "2_matmul: ok" in log and "1_linear_gelu" not in log and "lowered 1, failed 0" in log


def test_prepare_takes_the_streaming_form_when_asked(kb_bench, tmp_path, capsys):
    """``prepare --stream``: a group norm over 8 groups of 512K elements is lowered to one
    cooperative launch looping over tickets (the split form's three launches without it)."""
    from tests.lower.test_barrier import _GROUP_NORM

    level = tmp_path / "kb" / "level1"
    level.mkdir(parents=True)
    (level / "1_group_norm.py").write_text(_GROUP_NORM)
    codes = {}
    for flag in ([], ["--stream"]):
        out = tmp_path / f"cands{len(flag)}"
        assert kb_bench.main(["prepare", str(tmp_path / "kb"), "--levels", "1", "--out", str(out), *flag]) == 0
        codes[bool(flag)] = (out / "level1" / "1_group_norm" / "lowered.py").read_text()
    assert "while tk < PROGRAMS" in codes[True] and codes[True].count("\ndef k0_kernel") == 1
    assert "while tk < PROGRAMS" not in codes[False] and codes[False].count("\ndef k0_kernel") == 3


def test_run_takes_the_library_kind(kb_bench, kb, tmp_path):
    (kb / "level2" / "1_linear_gelu.py").unlink()  # keep the one without a library form: nothing runs
    cands, results = tmp_path / "cands", tmp_path / "r.jsonl"
    kb_bench.main(["prepare", str(kb), "--levels", "2", "--dsl", "cpp", "--backend", "cpu", "--out", str(cands)])
    assert kb_bench.main(["run", str(kb), str(cands), "--levels", "2", "--kinds", "library",
                          "--results", str(results), "--dsl", "cpp", "--backend", "cpu"]) == 0
    [row] = [json.loads(line) for line in results.read_text().splitlines()]
    stamp = row.pop("finished")  # every row is stamped: the newest row of a problem is the one `report` keeps
    assert abs(stamp - time.time()) < 600
    assert row == {"problem": "level2/2_matmul", "kind": "library", "level": 2, "status": "missing",
                   "timed": True}


def test_a_verified_row_records_its_sources(kb_bench, kb, tmp_path):
    """The task's and candidate's content hashes go with each verdict (`repeat` pairs rows by them)."""
    from akg_rag.task import source_hash

    cands, results = tmp_path / "cands", tmp_path / "r.jsonl"
    kb_bench.main(["prepare", str(kb), "--levels", "2", "--out", str(cands), "--problems", "2"])
    assert kb_bench.main(["run", str(kb), str(cands), "--levels", "2", "--results", str(results), "--backend", "cpu",
                          "--no-timing", "--trials", "1", "--problems", "2"]) == 0
    [row] = [json.loads(line) for line in results.read_text().splitlines()]
    cand = cands / "level2" / "2_matmul" / "lowered.py"
    assert row["status"] == "correct", row.get("feedback")
    assert row["sources"] == {"task": source_hash((kb / "level2" / "2_matmul.py").read_text()),
                              "candidate": source_hash(cand.read_text())}


def _row(problem: str, kind: str, status: str, eager: float | None = None, partial: bool = False) -> dict:
    row = {"problem": problem, "kind": kind, "level": 2, "status": status, "partial": partial}
    if eager is not None:
        row.update(speedup_eager=eager, speedup_compile=eager / 2, candidate_ms=1.0)
    return row


def test_offline_says_no_candidate_for_a_missing_kind_and_counts_no_failure(kb_bench, kb, tmp_path, capsys):
    """A task without a library form has nothing to compile: no row, no failure in the totals."""
    (kb / "level2" / "1_linear_gelu.py").unlink()
    cands, results = tmp_path / "cands", tmp_path / "off.jsonl"
    kb_bench.main(["prepare", str(kb), "--levels", "2", "--out", str(cands)])
    capsys.readouterr()
    assert kb_bench.main(["offline", str(kb), str(cands), "--levels", "2", "--kinds", "library",
                          "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "level2/2_matmul library: no candidate" in out
    assert "0 candidates, 0 launches; 0 spilling; 0 failed to compile" in out
    assert not results.exists() or not results.read_text().strip()


def test_report_modes_pick_the_faster_correct_kind(kb_bench):
    by = {
        # the library form is faster: it wins in both modes, counted partial and library
        "level2/1_a": {"lowered": _row("level2/1_a", "lowered", "correct", 0.4),
                       "library": _row("level2/1_a", "library", "correct", 1.3, partial=True)},
        # the library form fails: the lowered one scores
        "level2/2_b": {"lowered": _row("level2/2_b", "lowered", "correct", 0.8),
                       "library": _row("level2/2_b", "library", "incorrect")},
        # a reused kernel is faster still: only the normal mode sees it
        "level2/3_c": {"lowered": _row("level2/3_c", "lowered", "correct", 0.5),
                       "library": _row("level2/3_c", "library", "correct", 0.9, partial=True),
                       "reused": _row("level2/3_c", "reused", "correct", 2.0)},
        # nothing correct in the lower mode's kinds: a failure (1.0x), not the reused row
        "level2/4_d": {"lowered": _row("level2/4_d", "lowered", "incorrect"),
                       "reused": _row("level2/4_d", "reused", "correct", 3.0)},
    }
    picks = {k: kb_bench._pick(rows, "lower")["kind"] for k, rows in by.items()}
    assert picks == {"level2/1_a": "library", "level2/2_b": "lowered", "level2/3_c": "library",
                     "level2/4_d": "lowered"}
    picks = {k: kb_bench._pick(rows, "normal")["kind"] for k, rows in by.items()}
    assert picks == {"level2/1_a": "library", "level2/2_b": "lowered", "level2/3_c": "reused",
                     "level2/4_d": "reused"}
    _, lower = kb_bench.summary(by, "lower")
    f = lower["level2"]
    assert (f["correct"], f["partial"], f["library"]) == (3, 2, 2)
    assert f["geomean_eager"] == pytest.approx((1.3 * 0.8 * 0.9 * 1.0) ** 0.25)
    _, normal = kb_bench.summary(by, "normal")
    assert (normal["level2"]["correct"], normal["level2"]["library"]) == (4, 1)
    from figures import figures_line  # noqa: E402 - put on sys.path by kernelbench.py

    assert "(2 partial, 2 library)" in figures_line("level2", f)


def test_report_leaves_out_excluded_problems_and_measures_memory_bound_rows(kb_bench, capsys, tmp_path):
    """``--exclude`` drops problems from the figures (level 1 without its convolutions); the
    memory-bound rows (bytes term of the roofline floor the larger) are measured against the copy
    bandwidth, compute-bound ones are not."""
    def row(problem, eager, gbps, tflops):
        r = _row(problem, "lowered", "correct", eager)
        r.update(level=1, achieved_gbps=gbps, achieved_tflops=tflops, roofline=gbps / 4800)
        return r

    by = {"level1/19_ReLU": {"lowered": row("level1/19_ReLU", 0.98, 3900.0, 0.5)},
          "level1/23_Softmax": {"lowered": {**row("level1/23_Softmax", 1.2, 2500.0, 2.0), "queued": True}},
          "level1/1_Square_matrix_multiplication_": {"lowered": row("level1/1_Square_matrix_multiplication_",
                                                                    1.4, 200.0, 70.0)},
          "level1/50_conv_standard_2D": {"lowered": row("level1/50_conv_standard_2D", 0.3, 100.0, 20.0)}}
    _, f = kb_bench.summary(by, "lower", exclude=["level1/*conv*"], copy_gbps=4000.0)
    lv = f["level1"]
    assert lv["problems"] == 3 and lv["geomean_eager"] == pytest.approx((0.98 * 1.2 * 1.4) ** (1 / 3))
    b = lv["bandwidth"]
    assert b["memory_bound"] == 2 and b["at_target"] == 1                 # ReLU at 97.5%, softmax at 62.5%
    assert b["queued"] == 1                                               # softmax's runs were queued
    assert b["median_of_copy"] == pytest.approx((3900 / 4000 + 2500 / 4000) / 2)
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(rows["lowered"]) + "\n" for rows in by.values()))
    kb_bench.main(["report", str(results), "--exclude", "level1/*conv*", "--copy-gbps", "4000"])
    out = capsys.readouterr().out
    assert "level1: 3/3 correct" in out and "50_conv" not in out
    assert "2 timed memory-bound rows, median 80% of the 4000 GB/s copy, 1 at >= 80% (1 timed with queued runs)" in out
    assert "level1: below 80%: 23 (62%); --problems 23" in out   # what to time again first
    assert b["below"] == [["level1/23_Softmax", pytest.approx(2500 / 4000)]]
    assert "| 81 " in out      # ReLU's % of roofline (3900 / 4800) in the table
    # --json: nothing but JSON on stdout, the figures and one object per problem row
    kb_bench.main(["report", str(results), "--exclude", "level1/*conv*", "--copy-gbps", "4000", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["figures"]["level1"]["problems"] == 3
    assert doc["figures"]["level1"]["geomean_eager"] == pytest.approx(lv["geomean_eager"])
    assert len(doc["rows"]) == 3 and all(r["problem"].startswith("level1/") for r in doc["rows"])
    assert not any("conv" in r["problem"] for r in doc["rows"]) and "x eager" in doc["rows"][0]


def test_compile_baselines_anchor_rows_timed_without_compile(kb_bench, tmp_path, capsys):
    rows = tmp_path / "l2.jsonl"
    timed = {"level": 2, "kind": "lowered", "status": "correct", "timed": True}
    rows.write_text("\n".join(json.dumps(r) for r in [
        dict(timed, problem="level2/1_a", speedup_eager=1.5, speedup_compile=None),  # anchored
        dict(timed, problem="level2/2_b", speedup_eager=1.2, speedup_compile=0.9),   # its own figure stays
        dict(timed, problem="level2/3_c", speedup_eager=1.4, speedup_compile=None),  # baseline failed
        {"problem": "level2/4_d", "kind": "lowered", "level": 2, "status": "incorrect", "timed": True},
    ]) + "\n")
    bases = tmp_path / "compile.jsonl"
    bases.write_text("\n".join(json.dumps(r) for r in [
        # compile runs at 1.25x eager: a candidate at 1.5x eager is 1.2x over compile
        {"problem": "level2/1_a", "baseline": "compile", "status": "ok", "compile_over_eager": 1.25},
        {"problem": "level2/2_b", "baseline": "compile", "status": "ok", "compile_over_eager": 2.0},
        {"problem": "level2/3_c", "baseline": "compile", "status": "compile_failed", "error": "x"},
        {"problem": "level2/4_d", "baseline": "compile", "status": "ok", "compile_over_eager": 1.1},
        "not json",
    ]) + "\n")
    by = kb_bench._load([str(rows)])
    _, plain = kb_bench.summary(by, "lower")
    from compile_baseline import baseline_rows  # noqa: E402 - put on sys.path by kernelbench.py

    _, figs = kb_bench.summary(by, "lower", baseline_rows([str(bases)]))
    assert plain["level2"]["geomean_compile"] == pytest.approx(0.9 ** 0.25)
    assert figs["level2"]["geomean_compile"] == pytest.approx((1.2 * 0.9 * 1.0 * 1.0) ** 0.25)
    kb_bench.main(["report", str(rows), "--baselines", str(bases)])
    assert "compile figures of 1 problem(s) eager-anchored" in capsys.readouterr().out


def test_baselines_time_compile_against_eager_per_problem_and_resume(kb_bench, kb, tmp_path, capsys):
    """A real child per problem on the CPU: inductor compiles the task, both sides timed interleaved."""
    out = tmp_path / "compile.jsonl"
    args = ["baselines", str(kb), "--levels", "2", "--results", str(out), "--device", "cpu", "--problems", "2",
            "--timing-budget", "0.2", "--timeout", "600"]
    assert kb_bench.main(args) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["problem"] == "level2/2_matmul" and row["baseline"] == "compile"
    assert row["status"] == "ok", row
    assert row["eager_ms"] > 0 and row["compile_ms"] > 0 and row["compile_s"] > 0
    assert row["compile_over_eager_low"] <= row["compile_over_eager"] <= row["compile_over_eager_high"]
    assert row["compile_over_eager"] == pytest.approx(row["eager_ms"] / row["compile_ms"], rel=0.5)
    kb_bench.main(args)                       # resumable: a done problem is not run again
    assert len(out.read_text().splitlines()) == 1
    assert "0 problems" in capsys.readouterr().out
