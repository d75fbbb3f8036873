"""``akg-rag generate`` as a subprocess: progress, outputs, exit codes, and resuming a killed run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

from .conftest import TASK, UNMATCHED_TASK, seed

CLI = [sys.executable, "-c", "import sys; from akg_rag.cli import main; sys.exit(main())", "generate"]


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})


def progress_nodes(stdout: str) -> list[str]:
    """Node names of the progress lines ("[ n] node status ...")."""
    return [m.group(1) for m in re.finditer(r"^\[\s*\d+\]\s+(\S+)", stdout, re.M)]


def test_killed_run_resumes_from_its_checkpoint(tmp_path, embedder):
    from akg_rag.store import make_store

    data = tmp_path / "store"
    seed(make_store(data_dir=data), embedder)
    out = tmp_path / "run"
    common = ["--data-dir", str(data), "--out", str(out), "--trials", "2", "--no-compile-baseline"]

    killed = run_cli(str(TASK), "--dsl", "cpp", "--backend", "cpu", "--thread-id", "t-resume",
                     "--max-opt-passes", "0", *common, env={"AKG_RAG_HALT_AFTER": "verifier"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert progress_nodes(killed.stdout) == ["retrieve", "designer", "conductor", "coder", "verifier"]
    assert (out / "checkpoints.sqlite").is_file() and not (out / "report.json").exists()

    resumed = run_cli("--resume", "t-resume", *common)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming t-resume before: conductor" in resumed.stdout
    assert progress_nodes(resumed.stdout) == ["conductor", "finish"]  # nothing finished is redone
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "verified" and len(report["attempts"]) == 1
    assert report["attempts"][0]["route"] == "finish"
    assert (out / "kernel.py").read_text() and (out / "sketch.txt").read_text()
    assert "| 1 | functional |" in (out / "report.md").read_text()
    # The verified kernel was written back to the persistent store.
    assert report["written_back"] and make_store(data_dir=data).get("kernels", report["written_back"][0])


def test_no_match_exits_nonzero_with_a_reason(tmp_path, embedder):
    from akg_rag.store import make_store

    data = tmp_path / "store"
    seed(make_store(data_dir=data), embedder)
    result = run_cli(str(UNMATCHED_TASK), "--dsl", "cpp", "--backend", "cpu", "--data-dir", str(data),
                     "--out", str(tmp_path / "out"), "--json")
    assert result.returncode == 1
    final = [ln for ln in result.stderr.splitlines() if ln.startswith("akg-rag: generate: no_match: no verified cpp/cpu")]
    assert len(final) == 1
    report = json.loads(result.stdout)
    assert report["status"] == "no_match" and report["attempts"] == []
    assert "[ 1] retrieve" in result.stderr  # with --json, progress goes to stderr
    # the long no_match message is printed in full once; progress lines refer to it
    message = final[0].removeprefix("akg-rag: generate: no_match: ")
    assert len(message) > 100 and result.stderr.count(message) == 1
    # nothing was tried: the run folder this run created is removed, and the message says so
    assert not (tmp_path / "out").exists() and "removed" in result.stderr


def test_bad_arguments_are_configuration_errors(tmp_path):
    result = run_cli(str(TASK), "--dsl", "cpp")
    assert result.returncode == 2 and "--backend" in result.stderr
    result = run_cli("--resume", "nope", "--out", str(tmp_path / "none"))
    assert result.returncode == 2 and "no checkpoint for thread nope" in result.stderr
