"""The task's side of the roofline figures (FLOPs, least bytes moved, dtype), worked out once per task.

A judge is a fresh interpreter, where :func:`akg_rag.analysis.analyze_task`'s first call spends
seconds in lazy torch imports -- on every verification, on the critical path of a bench's timed
phase. Here one warm helper process per verifying process (``python -P -m akg_rag.verify.figures``)
does the analysis, in the background, and the figures it returns are memoised per task source and
scale; :func:`verify` hands a memoised entry to the judge in the judge's job file (the candidate
never sees that file), and the judge works them out itself only when there is none.

Safe against the candidate: these are figures of the task, computed from its source alone, in a
process the candidate has no way to reach. Safe against a bad task: the helper answers each
request within :data:`REQUEST_TIMEOUT_S` or is killed (the task then gets no memoised figures and
the judge, under the verification's wall-clock limit, tries itself); nothing waits on the helper
except its own background thread. The helper sets AKG_TASK_SCALE in its own environment only.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from akg_rag.task import source_hash

REQUEST_TIMEOUT_S = 120.0
KEYS = ("flops", "min_bytes", "dtype")

_memo: dict[tuple[str, str, str | None], dict | None] = {}
_lock = threading.Lock()
_todo: queue.Queue = queue.Queue()
_thread: threading.Thread | None = None


def _key(task_name: str, task_source: str, scale: str | None) -> tuple[str, str, str | None]:
    return source_hash(task_source), task_name, scale


def valid(given: object) -> bool:
    """Whether ``given`` has the shape the helper writes: non-negative int flops and min_bytes, a dtype."""
    return (isinstance(given, dict) and set(given) == set(KEYS)
            and all(isinstance(given[k], int) and not isinstance(given[k], bool) and given[k] >= 0
                    for k in ("flops", "min_bytes"))
            and isinstance(given["dtype"], str))


def cached(task_name: str, task_source: str, scale: str | None) -> dict | None:
    """The memoised figures of a task at ``scale``, or None (not asked yet, pending, or failed)."""
    with _lock:
        got = _memo.get(_key(task_name, task_source, scale))
    return dict(got) if got else None


def prefetch(task_name: str, task_source: str, scale: str | None) -> None:
    """Ask the helper for a task's figures in the background (once per task and scale)."""
    global _thread
    key = _key(task_name, task_source, scale)
    with _lock:
        if key in _memo:
            return
        _memo[key] = None          # pending: asked once, whatever the answer
        _todo.put((key, task_name, task_source, scale))
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_serve, name="akg-task-figures", daemon=True)
            _thread.start()


def prefetch_path(task: str | Path, scale: str | None) -> None:
    """:func:`prefetch` for a task file (a batch of verifications asks for all of its tasks first,
    so the figures are ready by the time each is timed); an unreadable file is left to the judge."""
    try:
        prefetch(Path(task).name, Path(task).read_text(encoding="utf-8"), scale)
    except (OSError, UnicodeDecodeError):
        pass


def wait_idle(timeout_s: float) -> bool:
    """Block until every prefetched request has an answer (for tests and benches); False on timeout."""
    done = threading.Event()

    def waiter() -> None:
        _todo.join()
        done.set()

    threading.Thread(target=waiter, daemon=True).start()
    return done.wait(timeout_s)


def _serve() -> None:
    """The background thread: one helper process, requests in order, a killed helper restarted."""
    helper: subprocess.Popen | None = None
    while True:
        key, name, source, scale = _todo.get()
        try:
            if helper is None or helper.poll() is not None:
                helper = subprocess.Popen([sys.executable, "-P", "-m", "akg_rag.verify.figures"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True, env=_helper_env())
            answer = _ask(helper, {"name": name, "source": source, "scale": scale})
            if answer is None:
                helper.kill()
                helper.wait()
                helper = None
            with _lock:
                _memo[key] = answer if valid(answer) else None
        except Exception:  # noqa: BLE001 - no figures for this task; the judge works them out
            pass
        finally:
            _todo.task_done()


def _helper_env() -> dict[str, str]:
    """This process's environment, with the package importable (``-P`` drops the script dir)."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def _ask(helper: subprocess.Popen, request: dict) -> dict | None:
    """One request and its answer line, or None when the helper takes too long or dies."""
    out: list[str] = []
    assert helper.stdin is not None and helper.stdout is not None
    helper.stdin.write(json.dumps(request) + "\n")
    helper.stdin.flush()
    reader = threading.Thread(target=lambda: out.append(helper.stdout.readline()), daemon=True)
    reader.start()
    reader.join(REQUEST_TIMEOUT_S)
    if reader.is_alive() or not out or not out[0]:
        return None
    try:
        answer = json.loads(out[0])
    except ValueError:
        return None
    return answer.get("figures") if isinstance(answer, dict) else None


def _analyse(request: dict[str, Any]) -> dict | None:
    """The helper's side of one request (the task loaded from a private copy, as the judge does)."""
    from akg_rag.analysis import analyze_task

    if request.get("scale") is None:
        os.environ.pop("AKG_TASK_SCALE", None)
    else:
        os.environ["AKG_TASK_SCALE"] = str(request["scale"])
    with tempfile.TemporaryDirectory(prefix="akg-figures-") as tmp:
        path = Path(tmp) / (Path(str(request.get("name") or "task.py")).name or "task.py")
        path.write_text(request["source"], encoding="utf-8")
        try:
            a = analyze_task(path, source=request["source"])
        except Exception:  # noqa: BLE001 - answered as "no figures"
            return None
    return {"flops": int(a.flops), "min_bytes": int(a.min_bytes), "dtype": str(a.dtype)}


def main() -> int:
    """Helper loop: one JSON request per stdin line, one ``{"figures": ...}`` line back. The answers
    go out on a private copy of stdout; fd 1 itself is pointed at stderr, so whatever a task prints
    cannot be taken for an answer."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        try:
            figures = _analyse(json.loads(line))
        except Exception:  # noqa: BLE001 - a malformed request gets no figures
            figures = None
        answers.write(json.dumps({"figures": figures}) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
