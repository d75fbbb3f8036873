"""Bad input gets one plain message within seconds, before the store, the model or torch loads."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from akg_rag.cli.checks import check_task_file, empty_store_message, gpu_visible, require_gpu, require_text
from akg_rag.errors import ConfigError, TaskError

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "examples" / "softmax_task.py"
CLI = [sys.executable, "-c", "import sys; from akg_rag.cli import main; sys.exit(main())"]
# The bound for every bad input below; the checks themselves take well under a second.
LIMIT_S = 5.0


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    result = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return result, time.monotonic() - start


def test_task_file_checks(tmp_path):
    with pytest.raises(TaskError, match="no such file"):
        check_task_file(tmp_path / "missing.py")
    bad = tmp_path / "bad.py"
    bad.write_text("class Model(:\n")
    with pytest.raises(TaskError, match="syntax error at line 1"):
        check_task_file(bad)
    partial = tmp_path / "partial.py"
    partial.write_text("class Model:\n    pass\n")
    with pytest.raises(TaskError, match="get_inputs, get_init_inputs"):
        check_task_file(partial)
    check_task_file(TASK)


def test_blank_text_is_refused():
    with pytest.raises(ConfigError, match="blank"):
        require_text("   ")
    require_text("softmax")
    require_text(None)


def test_gpu_check_respects_cuda_visible_devices(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert gpu_visible() is False
    with pytest.raises(ConfigError, match="needs a CUDA GPU"):
        require_gpu("cuda", "generate")
    require_gpu("cpu", "generate")
    require_gpu("cuda", "generate", executor="ray")  # the GPU is where the jobs run


def test_empty_store_message_names_where_it_looked_and_why(tmp_path, monkeypatch):
    monkeypatch.delenv("AKG_RAG_DATA_DIR", raising=False)
    monkeypatch.delenv("AKG_RAG_CHROMA_URL", raising=False)
    text = empty_store_message(str(tmp_path / "a"), str(tmp_path / "a"), None)
    assert f"looked at: {tmp_path / 'a'}" in text and "--data-dir" in text and "akg-ingest" in text
    monkeypatch.setenv("AKG_RAG_DATA_DIR", str(tmp_path / "b"))
    assert "$AKG_RAG_DATA_DIR" in empty_store_message(str(tmp_path / "b"), None, None)


@pytest.mark.parametrize("args, expected", [
    (["query", "--task", "missing.py"], "missing.py: no such file"),
    (["query", "   "], "the query is blank"),
    (["generate", "missing.py", "--dsl", "cpp", "--backend", "cpu"], "no such file"),
    (["generate", str(TASK), "--dsl", "cpp", "--backend", "cuda"], "unknown target cpp/cuda"),
    (["search", "missing.py", str(TASK), "--dsl", "cpp", "--backend", "cpu"], "no such file"),
])
def test_bad_input_is_told_once_and_fast(args, expected, tmp_path):
    result, seconds = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr and result.stderr.count(expected) == 1
    assert seconds < LIMIT_S, f"{seconds:.1f} s"
    assert not list(tmp_path.iterdir())  # nothing created: no store, no run folder


def test_generate_for_cuda_without_a_gpu_says_so_before_retrieval(tmp_path):
    result, seconds = run_cli("generate", str(TASK), "--dsl", "triton", "--backend", "cuda",
                              env={"CUDA_VISIBLE_DEVICES": ""}, cwd=tmp_path)
    assert result.returncode == 2 and "needs a CUDA GPU" in result.stderr
    assert seconds < LIMIT_S and not list(tmp_path.iterdir())


def test_a_syntax_error_in_the_task_is_reported_with_its_line(tmp_path):
    bad = tmp_path / "task.py"
    bad.write_text("import torch\nclass Model(torch.nn.Module)\n    pass\n")
    result, seconds = run_cli("query", "--task", str(bad), cwd=tmp_path)
    assert result.returncode == 2 and "syntax error at line 2" in result.stderr and seconds < LIMIT_S
