"""benchmarks/kernelbench.py: ``prepare`` writes the lowered and library candidates, ``run`` takes
the library kind, and ``report`` scores the right kinds per mode.

The "KernelBench" folder here is a fixture built from the project's own suite (benchmarks/tasks,
small scale), never KernelBench files. Nothing is built or verified: ``prepare`` only generates
source, and ``run`` meets a missing candidate; report rows are written by hand.
"""

from __future__ import annotations

import json
import shutil
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


def test_run_takes_the_library_kind(kb_bench, kb, tmp_path):
    (kb / "level2" / "1_linear_gelu.py").unlink()  # keep the one without a library form: nothing runs
    cands, results = tmp_path / "cands", tmp_path / "r.jsonl"
    kb_bench.main(["prepare", str(kb), "--levels", "2", "--dsl", "cpp", "--backend", "cpu", "--out", str(cands)])
    assert kb_bench.main(["run", str(kb), str(cands), "--levels", "2", "--kinds", "library",
                          "--results", str(results), "--dsl", "cpp", "--backend", "cpu"]) == 0
    [row] = [json.loads(line) for line in results.read_text().splitlines()]
    assert row == {"problem": "level2/2_matmul", "kind": "library", "level": 2, "status": "missing",
                   "timed": True}


def _row(problem: str, kind: str, status: str, eager: float | None = None, partial: bool = False) -> dict:
    row = {"problem": problem, "kind": kind, "level": 2, "status": status, "partial": partial}
    if eager is not None:
        row.update(speedup_eager=eager, speedup_compile=eager / 2, candidate_ms=1.0)
    return row


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
