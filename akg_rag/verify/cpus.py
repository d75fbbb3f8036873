"""The CPUs a CPU timing runs on: how many threads, and how idle threads wait.

The judge times eager and the candidate process times the kernel, taking turns on the same cores
(:mod:`akg_rag.verify.paired`). Two things decide whether those turns are comparable:

* **Wait policy.** With the OpenMP runtimes' default policy a thread that finishes a parallel
  region spins before it sleeps (libgomp: 300,000 spins, milliseconds), so the side that just
  finished a block keeps cores busy while the other side is timed on them. Both processes get
  :data:`CPU_WAIT_ENV`: idle threads sleep at once, the idle side holds no core.
* **Thread count.** Both sides get the same OMP_NUM_THREADS. A static parallel region of ``t``
  threads ends when its last thread does; when other programs keep some of the CPUs busy, one of
  the ``t`` threads waits for a time slice (4 ms ticks) in most runs, and the median measures the
  scheduler, not the kernel (two runs of the same kernel read 0.035x and 12.9x that way). So the
  default is the CPUs that are *free* when the verification starts (:func:`timing_threads`): all
  of them on an idle machine, fewer beside other work. ``VerifyOptions.cpu_threads`` fixes it.
"""

from __future__ import annotations

import os
import time

# Idle OpenMP threads sleep at once: libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT (which would
# override the policy), the LLVM/Intel runtime KMP_BLOCKTIME (ms). Set over whatever the caller had.
CPU_WAIT_ENV = {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "0", "KMP_BLOCKTIME": "0"}
SAMPLE_S = 0.25    # how long /proc/stat is watched to see how busy the CPUs are (seconds)


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cpu_times(text: str, cpus: set[int] | None = None) -> tuple[int, int]:
    """``(busy, total)`` jiffies summed over the ``cpuN`` lines of /proc/stat ``text`` (only ``cpus``
    when given). Idle and iowait count as not busy; steal (time the hypervisor gave elsewhere) as busy."""
    busy = total = 0
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit()):
            continue
        if cpus is not None and int(name[3:]) not in cpus:
            continue
        vals = [int(v) for v in rest.split()[:8]]  # user nice system idle iowait irq softirq steal
        total += sum(vals)
        busy += sum(vals) - vals[3] - (vals[4] if len(vals) > 4 else 0)
    return busy, total


def busy_cpus(sample_s: float = SAMPLE_S) -> float | None:
    """How many of this process's CPUs other work kept busy over ``sample_s`` seconds (0.0 to their
    count), from two reads of /proc/stat; None where there is no /proc/stat."""
    try:
        cpus = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        cpus = None
    try:
        with open("/proc/stat") as f:
            b0, t0 = cpu_times(f.read(), cpus)
        time.sleep(sample_s)
        with open("/proc/stat") as f:
            b1, t1 = cpu_times(f.read(), cpus)
    except OSError:
        return None
    if t1 <= t0:
        return None
    return (b1 - b0) / (t1 - t0) * (len(cpus) if cpus else available_cpus())


def timing_threads(busy: float | None = None) -> int:
    """Threads a CPU timing can count on: the available CPUs less those others keep busy (``busy``,
    measured by :func:`busy_cpus` when not given), rounded, at least 1."""
    n = available_cpus()
    if busy is None:
        busy = busy_cpus()
    if busy is None:
        return n
    return max(1, min(n, int(n - busy + 0.5)))


def cpu_timing_env(cpu_threads: int | None = None) -> dict[str, str]:
    """OpenMP settings shared by the judge and the candidate process on CPU.

    ``cpu_threads`` (default: :func:`timing_threads`) becomes OMP_NUM_THREADS, which torch's
    intra-op pool, MKL and a ``#pragma omp parallel`` in a candidate's extension all start with, so
    eager and the kernel are timed with the same number of threads; the wait policy is
    :data:`CPU_WAIT_ENV`.
    """
    return {"OMP_NUM_THREADS": str(cpu_threads or timing_threads()), **CPU_WAIT_ENV}
