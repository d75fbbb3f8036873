"""Starting, watching and killing the verification child and everything it started.

The child runs in a new session, so its process group holds it and whatever it forks. A process
that calls ``setsid`` leaves the group, so the process tree is also walked through ``/proc`` (parent
links) before anything is killed. Linux only, like the rest of the sandbox.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass
class Outcome:
    """How the child ended: exit status (negative = killed by that signal) and why we stopped it."""

    returncode: int | None
    timed_out: bool = False
    rss_exceeded: bool = False
    seconds: float = 0.0


def _stat_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, pgrp, rss pages) of every visible process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = data[data.rfind(")") + 2:].split()  # after "pid (comm) "
        try:
            table[int(entry)] = (int(fields[1]), int(fields[2]), int(fields[21]))
        except (IndexError, ValueError):
            continue
    return table


def tree(pid: int, table: dict[int, tuple[int, int, int]] | None = None, alive: bool = True) -> set[int]:
    """``pid`` (when ``alive``), its descendants and every member of its process group.

    Pass ``alive=False`` once ``pid`` has been reaped: its number may belong to someone else now,
    but a process group keeps its id while any member lives.
    """
    table = _stat_table() if table is None else table
    members = {p for p, (_, pgrp, _) in table.items() if pgrp == pid}
    found = ({pid} if alive else set()) | members
    frontier = list(found)
    while frontier:
        parent = frontier.pop()
        for p, (ppid, _, _) in table.items():
            if ppid == parent and p not in found:
                found.add(p)
                frontier.append(p)
    return found


def tree_rss_mb(pid: int) -> float:
    """Resident memory of the whole tree of ``pid`` in MiB."""
    table = _stat_table()
    return sum(table[p][2] for p in tree(pid, table) if p in table) * PAGE_BYTES / (1024 * 1024)


def kill_tree(pid: int, alive: bool = True) -> None:
    """SIGKILL ``pid``'s tree and process group; a no-op for what is already gone."""
    for p in tree(pid, alive=alive):
        if p == os.getpid():
            continue
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_child(argv: list[str], *, key: bytes, cwd: Path, env: dict[str, str], log_path: Path,
              timeout_s: float, rss_limit_mb: int | None = None, poll_s: float = 0.1) -> Outcome:
    """Run ``argv + [key_fd]`` with ``key`` waiting on the pipe ``key_fd``; wait, watch, clean up."""
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, key)
    finally:
        os.close(write_fd)
    started = time.monotonic()
    try:
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(argv + [str(read_fd)], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT, pass_fds=(read_fd,),
                                    start_new_session=True)
    finally:
        os.close(read_fd)
    outcome = Outcome(returncode=None)
    try:
        while True:
            try:
                proc.wait(timeout=poll_s)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() - started > timeout_s:
                outcome.timed_out = True
                break
            if rss_limit_mb is not None and tree_rss_mb(proc.pid) > rss_limit_mb:
                outcome.rss_exceeded = True
                break
    finally:
        # before wait() reaps it, the child's pid cannot be reused, so its tree is safe to walk
        kill_tree(proc.pid, alive=proc.poll() is None)
        proc.wait()
    outcome.returncode = proc.returncode
    outcome.seconds = time.monotonic() - started
    return outcome


@dataclass
class Spawn:
    """How to start one process: argv, directory, environment, log, extra Popen arguments."""

    argv: list[str]
    cwd: Path
    env: dict[str, str]
    log_path: Path
    pass_fds: tuple[int, ...] = ()
    popen_kwargs: dict | None = None


@dataclass
class PairOutcome:
    """How the judge and the candidate process ended."""

    judge_returncode: int | None = None
    candidate_returncode: int | None = None
    candidate_started: bool = False
    timed_out: bool = False
    rss_exceeded: bool = False
    seconds: float = 0.0


def _popen(spawn: Spawn, log: object) -> subprocess.Popen:
    return subprocess.Popen(spawn.argv, cwd=spawn.cwd, env=spawn.env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, pass_fds=spawn.pass_fds, start_new_session=True,
                            **(spawn.popen_kwargs or {}))


def run_pair(judge: Spawn, candidate: Spawn, *, key: bytes, ready_fd: int, go_fd: int, timeout_s: float,
             rss_limit_mb: int | None = None, poll_s: float = 0.05) -> PairOutcome:
    """Run the judge (``judge.argv + [key_fd]``) and the candidate process side by side; when the
    judge writes a byte to ``ready_fd``, pass one on to the candidate through ``go_fd`` (it waits
    for it before loading anything of the candidate); wait for the judge, enforce the deadline and
    the candidate's RSS limit, and kill both process trees at the end. Every fd in both
    ``pass_fds`` is closed here once given away, ``go_fd`` once used or at the end.
    """
    key_r, key_w = os.pipe()
    try:
        os.write(key_w, key)
    finally:
        os.close(key_w)
    judge = Spawn(judge.argv + [str(key_r)], judge.cwd, judge.env, judge.log_path,
                  judge.pass_fds + (key_r,), judge.popen_kwargs)
    out = PairOutcome()
    started = time.monotonic()
    jproc = cproc = None
    pending = set(judge.pass_fds) | set(candidate.pass_fds) | {ready_fd, go_fd}
    try:
        with open(judge.log_path, "wb") as jlog, open(candidate.log_path, "wb") as clog:
            jproc = _popen(judge, jlog)
            _close(pending, judge.pass_fds)
            cproc = _popen(candidate, clog)
            _close(pending, candidate.pass_fds)
            os.set_blocking(ready_fd, False)
            while jproc.poll() is None:
                if ready_fd in pending:
                    try:
                        got = os.read(ready_fd, 1)
                    except BlockingIOError:
                        got = None
                    if got:
                        try:
                            os.write(go_fd, b"G")
                            out.candidate_started = True
                        except OSError:    # the candidate process is gone: the judge finds out
                            pass
                        _close(pending, (ready_fd, go_fd))
                    elif got == b"":
                        _close(pending, (ready_fd, go_fd))
                if time.monotonic() - started > timeout_s:
                    out.timed_out = True
                    break
                if rss_limit_mb is not None and cproc.poll() is None and tree_rss_mb(cproc.pid) > rss_limit_mb:
                    out.rss_exceeded = True
                    break
                time.sleep(poll_s)
    finally:
        _close(pending, tuple(pending))
        for proc in (cproc, jproc):
            if proc is not None:
                kill_tree(proc.pid, alive=proc.poll() is None)
        for proc in (cproc, jproc):
            if proc is not None:
                proc.wait()
    out.judge_returncode = jproc.returncode if jproc else None
    out.candidate_returncode = cproc.returncode if cproc else None
    out.seconds = time.monotonic() - started
    return out


def _close(pending: set[int], fds: tuple[int, ...]) -> None:
    for fd in fds:
        if fd in pending:
            pending.discard(fd)
            try:
                os.close(fd)
            except OSError:
                pass
