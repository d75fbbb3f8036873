"""The caller survives what a candidate does to its own process tree."""

from __future__ import annotations

import os
import time
from pathlib import Path

from akg_rag.verify import VerifyOptions, verify

HERE = Path(__file__).parent


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"   # a zombie is dead
    except OSError:
        return False


def test_escaped_grandchild_is_killed_on_timeout(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    source = (HERE / "candidates" / "rt_fork_hang.py").read_text().replace("@PID_FILE@", str(pid_file))
    r = verify(HERE / "tasks" / "rowscale.py", candidate_source=source, dsl="triton", backend="cpu",
               options=VerifyOptions(trials=1, timing=False, timeout_s=30.0, static_guards=False))
    assert r.status == "timeout"
    assert pid_file.exists(), "the grandchild never started"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5.0  # SIGKILL delivery is asynchronous
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)
    assert os.getpid() != pid
