"""Bench over a directory, the verify and bench CLIs, and configuration errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from akg_rag.errors import ConfigError, TaskError
from akg_rag.verify import verify
from akg_rag.verify.__main__ import main
from akg_rag.verify.bench import BenchItem, format_summary, summarize
from akg_rag.verify.result import Timings, VerifyResult

HERE = Path(__file__).parent
FAST_ARGS = ["--dsl", "triton", "--backend", "cpu", "--trials", "2", "--runs", "3", "--no-compile-baseline"]


def test_bench_directory_table_summary_and_report(tmp_path, capsys):
    tasks, cands, out = tmp_path / "tasks", tmp_path / "cands", tmp_path / "report"
    (tasks / "dyn").mkdir(parents=True)
    (cands / "dyn").mkdir(parents=True)
    shutil.copy(HERE / "tasks" / "rowscale.py", tasks / "plain.py")
    shutil.copy(HERE / "tasks" / "rowscale_dyn.py", tasks / "dyn" / "task.py")
    shutil.copy(HERE / "tasks" / "rowscale.py", tasks / "orphan.py")          # no candidate
    shutil.copy(HERE / "candidates" / "triton_correct.py", cands / "plain.py")
    shutil.copy(HERE / "candidates" / "triton_tail_bug.py", cands / "dyn" / "triton_cpu.py")
    code = main(["bench", str(tasks), str(cands), *FAST_ARGS, "--jobs", "2", "--report", str(out)])
    assert code == 1                                         # not every task is correct
    text = capsys.readouterr().out
    assert "plain" in text and "fast_0=0.33" in text and "not meaningful" in text
    results = json.loads((out / "results.json").read_text())
    status = {t["name"]: t["status"] for t in results["tasks"]}
    assert status == {"dyn": "incorrect", "orphan": "missing", "plain": "correct"}
    assert results["summary"]["fast_p"]["fast_0"] == pytest.approx(1 / 3)
    assert results["summary"]["n_correct"] == 1
    report = (out / "report.md").read_text()
    assert "| plain | correct |" in report and "### dyn (incorrect)" in report
    assert (out / "speedups.png").read_bytes()[:4] == b"\x89PNG"


def test_resume_keeps_unchanged_correct_results_and_runs_the_rest(tmp_path, capsys):
    tasks, cands, out = tmp_path / "tasks", tmp_path / "cands", tmp_path / "report"
    tasks.mkdir()
    cands.mkdir()
    for name, cand in (("a", "triton_correct"), ("b", "triton_correct"), ("c", "triton_incorrect")):
        shutil.copy(HERE / "tasks" / "rowscale.py", tasks / f"{name}.py")
        shutil.copy(HERE / "candidates" / f"{cand}.py", cands / f"{name}.py")
    base = ["bench", str(tasks), str(cands), *FAST_ARGS, "--report", str(out)]
    assert main(base) == 1
    first = {t["name"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}
    assert first["a"]["sources"]["candidate"] != first["c"]["sources"]["candidate"]
    capsys.readouterr()
    # b's kernel changes after its run: it is verified again; a is kept as it was; c failed: again
    (cands / "b.py").write_text((cands / "b.py").read_text() + "\n# edited after the first run\n")
    assert main(base + ["--resume"]) == 1
    assert "resumed 1 of 3 tasks" in capsys.readouterr().err
    second = {t["name"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}
    assert second["a"]["reused"] is True and second["a"]["result"] == first["a"]["result"]
    assert second["b"]["reused"] is False and second["b"]["status"] == "correct"
    assert second["b"]["sources"]["candidate"] != first["b"]["sources"]["candidate"]
    assert second["c"]["reused"] is False and second["c"]["status"] == "incorrect"
    # other settings reuse nothing
    other = [a if a != "2" else "3" for a in base]   # --trials 3
    assert main(other + ["--resume", "--only", "a"]) == 0
    assert "resumed 0 of 1 tasks" in capsys.readouterr().err
    assert main(["bench", str(tasks), str(cands), *FAST_ARGS, "--resume"]) == 2   # no --report: refused
    assert "--resume needs --report" in capsys.readouterr().err


def test_verify_cli_json_and_exit_code(capsys):
    code = main([str(HERE / "tasks" / "rowscale.py"), str(HERE / "candidates" / "triton_correct.py"),
                 *FAST_ARGS, "--json"])
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    assert d["status"] == "correct" and d["timings"]["meaningful"] is False


def test_fast_p_and_geomean_from_results():
    def item(name, status, speedup):
        r = VerifyResult(status, timings=Timings(candidate_ms=1.0, eager_ms=speedup, speedup_eager=speedup))
        return BenchItem(name, Path(f"{name}.py"), Path(f"{name}c.py"), result=r)

    items = [item("a", "correct", 4.0), item("b", "correct", 1.0), item("c", "correct", 1.2),
             item("d", "incorrect", 9.0), BenchItem("e", Path("e.py"), None)]
    s = summarize(items)
    assert s.n_tasks == 5 and s.n_correct == 3
    assert s.fast_p == {"fast_0": 0.6, "fast_1": 0.4, "fast_1.5": 0.2, "fast_2": 0.2}
    assert s.geomean_eager == pytest.approx((4.0 * 1.0 * 1.2) ** (1 / 3))


def test_partial_candidates_are_counted_apart_from_full_kernels():
    def item(name, speedup, partial):
        r = VerifyResult("correct", partial=partial, partial_ops=["mul"] if partial else [],
                         timings=Timings(candidate_ms=1.0, eager_ms=speedup, speedup_eager=speedup))
        return BenchItem(name, Path(f"{name}.py"), Path(f"{name}c.py"), result=r)

    s = summarize([item("a", 3.0, False), item("b", 2.5, True), item("c", 0.5, True), item("d", 1.2, False)])
    assert s.n_correct == 4 and s.n_partial == 2
    assert s.fast_p_full == {"fast_0": 0.5, "fast_1": 0.5, "fast_1.5": 0.25, "fast_2": 0.25}
    assert s.fast_p_partial == {"fast_0": 0.5, "fast_1": 0.25, "fast_1.5": 0.25, "fast_2": 0.25}
    assert s.fast_p["fast_2"] == s.fast_p_full["fast_2"] + s.fast_p_partial["fast_2"]
    text = format_summary(s)
    assert "full kernels:    2/4" in text and "partial (torch computes a part): 2/4" in text


def test_configuration_errors_raise_early(tmp_path):
    task, cand = HERE / "tasks" / "rowscale.py", HERE / "candidates" / "triton_correct.py"
    with pytest.raises(ConfigError, match="no CUDA device"):
        verify(task, cand, dsl="triton", backend="cuda")
    with pytest.raises(ConfigError, match="allowed"):
        verify(task, cand, dsl="cpp", backend="cuda")
    with pytest.raises(ConfigError, match="documented knowledge only"):
        verify(task, cand, dsl="triton", backend="ascend")
    with pytest.raises(ConfigError, match="unknown verify option"):
        verify(task, cand, dsl="triton", backend="cpu", options={"trails": 3})
    with pytest.raises(TaskError):
        verify(tmp_path / "missing.py", cand, dsl="triton", backend="cpu")


def test_a_failing_reference_is_a_task_error(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text((HERE / "tasks" / "rowscale.py").read_text().replace(
        "return torch.relu(x * self.weight)", "return torch.relu(x @ self.weight.view(1, -1))"))
    with pytest.raises(TaskError, match="reference failed"):
        verify(broken, HERE / "candidates" / "triton_correct.py", dsl="triton", backend="cpu",
               options={"trials": 1, "timing": False})
