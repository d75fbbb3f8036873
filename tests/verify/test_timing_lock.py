"""Concurrent verification children never time at the same moment: the timing lock serialises them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

HOLDER = textwrap.dedent("""
    import sys, time
    from akg_rag.verify.timing import exclusive
    lock, out = sys.argv[1], sys.argv[2]
    with exclusive(lock):
        start = time.monotonic_ns()
        time.sleep(0.3)
        end = time.monotonic_ns()
    open(out, "w").write(f"{start} {end}")
""")


def test_timed_sections_of_concurrent_processes_do_not_overlap(tmp_path):
    lock = tmp_path / "timing.lock"
    outs = [tmp_path / f"holder{i}.txt" for i in range(3)]
    procs = [subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), str(o)]) for o in outs]
    for p in procs:
        assert p.wait(timeout=60) == 0
    spans = sorted(tuple(map(int, o.read_text().split())) for o in outs)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start >= end, f"timed sections overlapped: {spans}"


def test_without_a_lock_path_the_section_runs_unlocked():
    from akg_rag.verify.timing import exclusive

    with exclusive(None):
        pass


def test_an_executor_with_several_jobs_shares_one_lock_among_its_jobs():
    from akg_rag.verify.executor import LocalExecutor

    ex = LocalExecutor(jobs=3)
    a = ex._share_cores({"backend": "cuda", "options": {}})
    b = ex._share_cores({"backend": "cpu", "options": {}})
    assert a["options"]["timing_lock"] == b["options"]["timing_lock"] == ex.lock_path
    assert "timing_lock" not in LocalExecutor(jobs=1)._share_cores({"backend": "cuda", "options": {}})["options"]
