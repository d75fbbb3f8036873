"""benchmarks/demo_repeat.py: which runs contradict each other, and the load processes it starts.

No verification runs here (the benchmark itself does that); rows are written by hand.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def m(load_bench):
    return load_bench("demo_repeat")


def test_only_disjoint_intervals_are_reported(m):
    rows = [{"low": 0.031, "high": 0.043}, {"low": 12.3, "high": 13.5}, {"status": "timeout"},
            {"low": 0.04, "high": 0.05}]
    assert m.overlaps(rows) == [(0, 1), (1, 3)]     # 0 and 3 share 0.04-0.043; 2 has no interval
    assert m.overlaps([{"low": 0.3, "high": 0.42}, {"low": 0.41, "high": 0.5}]) == []


def test_load_processes_run_until_stopped(m):
    procs = m.start_load(2)
    try:
        assert all(p.poll() is None for p in procs)
    finally:
        m.stop_load(procs)
    assert all(p.returncode is not None for p in procs)
