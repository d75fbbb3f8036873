"""The caller survives what a candidate does to its own process tree."""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

from akg_rag.verify import VerifyOptions, verify

HERE = Path(__file__).parent


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"   # a zombie is dead
    except OSError:
        return False


def _pids_with(marker: str) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.add(int(entry))
            except OSError:
                pass
    return found


def test_escaped_grandchild_is_killed_on_timeout():
    marker = f"akg-grandchild-{uuid.uuid4().hex}"
    source = (HERE / "candidates" / "rt_fork_hang.py").read_text().replace("@MARKER@", marker)
    seen: set[int] = set()
    done = threading.Event()

    def watch() -> None:  # the grandchild's pid from outside any PID namespace
        while not done.is_set():
            seen.update(_pids_with(marker))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        r = verify(HERE / "tasks" / "rowscale.py", candidate_source=source, dsl="triton", backend="cpu",
                   options=VerifyOptions(trials=1, timing=False, timeout_s=30.0, static_guards=False))
    finally:
        done.set()
        watcher.join()
    assert r.status == "timeout", r.feedback + r.log
    assert seen, "the grandchild never started"
    deadline = time.monotonic() + 5.0  # SIGKILL delivery is asynchronous
    while any(_alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in seen)
    assert os.getpid() not in seen
