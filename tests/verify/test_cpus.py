"""CPU timing settings: both processes get one thread count and a wait policy under which an idle
process holds no core (checked on a real process, against a spinning control)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from akg_rag.verify import cpus
from akg_rag.verify.env import child_env

# A process that runs a parallel torch op (its OpenMP threads are now idle), then blocks on a pipe
# for BLOCK_S, as the judge and the candidate process do while the other side is timed, and prints
# the CPU seconds all of its threads used meanwhile.
BLOCK_S = 0.4
IDLE_CHILD = textwrap.dedent(f"""
    import os, time, torch
    assert torch.get_num_threads() == int(os.environ["OMP_NUM_THREADS"]), torch.get_num_threads()
    x = torch.randn(256, 8192)
    for _ in range(20):
        torch.softmax(x, 1)
    c0 = time.process_time()
    time.sleep({BLOCK_S})   # blocked, as in recv() waiting for the other side
    print(time.process_time() - c0)
""")


def idle_cpu_seconds(env: dict[str, str]) -> float:
    out = subprocess.run([sys.executable, "-c", IDLE_CHILD], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return float(out.stdout.strip())


def test_both_processes_get_the_threads_and_the_passive_policy_over_the_callers():
    base = {"PATH": "/usr/bin", "OMP_WAIT_POLICY": "ACTIVE", "GOMP_SPINCOUNT": "INFINITE",
            "KMP_BLOCKTIME": "infinite", "OMP_NUM_THREADS": "64"}
    env = child_env(dsl="cpp", backend="cpu", extensions_dir="/e", scale=None, base=base, cpu_threads=3)
    assert env["OMP_NUM_THREADS"] == "3"
    assert env["OMP_WAIT_POLICY"] == "PASSIVE" and env["GOMP_SPINCOUNT"] == "0" and env["KMP_BLOCKTIME"] == "0"
    # without a fixed count: the CPUs free now, never more than this process may use
    free = int(child_env(dsl="cpp", backend="cpu", extensions_dir="/e", scale=None, base={})["OMP_NUM_THREADS"])
    assert 1 <= free <= cpus.available_cpus()
    # the GPU path is left as it was
    gpu = child_env(dsl="triton", backend="cuda", extensions_dir="/e", scale=None, base=base)
    assert gpu["OMP_WAIT_POLICY"] == "ACTIVE" and gpu["OMP_NUM_THREADS"] == "64"


@pytest.mark.skipif(cpus.available_cpus() < 2, reason="needs two CPUs for an OpenMP worker thread")
def test_an_idle_process_does_not_spin_while_the_other_side_is_timed():
    env = dict(os.environ, **cpus.cpu_timing_env(2))
    passive = idle_cpu_seconds(env)
    # control: the same process with spinning idle threads burns a core while it waits
    active = idle_cpu_seconds(dict(env, OMP_WAIT_POLICY="ACTIVE", GOMP_SPINCOUNT="INFINITE"))
    assert passive < 0.02, f"{passive:.3f} CPU s used while blocked for {BLOCK_S} s"
    assert active > 5 * passive + 0.02, (active, passive)


def test_busy_cpus_are_read_from_proc_stat():
    before = "cpu  9 9 9 9 9 9 9 9\ncpu0 100 0 50 1000 10 0 0 0 0 0\ncpu1 0 0 0 2000 0 0 0 0 0 0\n"
    after = "cpu  9 9 9 9 9 9 9 9\ncpu0 190 0 60 1000 10 0 0 0 0 0\ncpu1 0 0 0 2100 0 0 0 0 0 0\n"
    (b0, t0), (b1, t1) = cpus.cpu_times(before), cpus.cpu_times(after)
    assert (b1 - b0, t1 - t0) == (100, 200)           # cpu0 busy for its 100 jiffies, cpu1 idle
    assert cpus.cpu_times(after, {1}) == (0, 2100)    # only the CPUs asked for


def test_threads_are_the_cpus_left_free():
    n = cpus.available_cpus()
    assert cpus.timing_threads(busy=0.0) == n
    assert cpus.timing_threads(busy=float(n)) == 1
    assert cpus.timing_threads(busy=n + 5.0) == 1


def test_a_busy_loop_beside_is_seen():
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        busy = cpus.busy_cpus(0.5)
    finally:
        spinner.kill()
        spinner.wait()
    assert busy is not None and 0.5 <= busy <= cpus.available_cpus() + 1e-6
