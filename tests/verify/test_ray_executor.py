"""The Ray executor on a real local cluster: a head node and a worker node that this test starts.

The head takes no jobs (0 CPUs), so every job runs in the worker node's processes. Jobs travel
with their sources (the files are deleted before submission), results equal the local executor's,
and a worker killed mid-job has its job rerun, or reported as crashed when no retry is left.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two Ray nodes start (~20 s) and a job runs twice: about 2 minutes in all

ray = pytest.importorskip("ray", reason="needs ray: pip install 'akg-rag[ray]' (the test extra has it)")

from akg_rag.verify.executor import LocalExecutor, RayExecutor, make_job, portable  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
RELU_KERNEL = ROOT / "knowledge" / "kernels" / "relu" / "triton_cuda.py"
START_TIMEOUT_S = 120  # a node starts in 5-20 s on a loaded 2-core machine
JOB_OPTIONS = {"trials": 2, "timing": False, "scale": "small"}
# A task whose model takes seconds to build: a window in which to kill the worker running it.
SLOW_TASK = '''"""y = relu(x); building the model takes SLOW_S seconds (a long job for the kill test)."""
import time
import torch
import torch.nn as nn

SLOW_S = 6.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        time.sleep(SLOW_S)

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4, 257)]


def get_init_inputs():
    return []
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _session_pids(sid: int) -> dict[int, str]:
    """pid -> command line of the processes in session ``sid`` (the nodes this test started)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) != sid:
                continue
            out[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ProcessLookupError):
            continue
    return out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Address of a Ray head (0 CPUs) with one worker node (2 CPUs); both killed at the end."""
    if shutil.which("ray", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("the ray command is not installed next to the interpreter")
    ray_cmd = str(Path(sys.executable).parent / "ray")
    tmp = tmp_path_factory.mktemp("ray")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAY_USAGE_STATS_ENABLED="0")
    common = ["--block", "--disable-usage-stats", "--object-store-memory", str(100 * 2**20)]
    head = subprocess.Popen(
        [ray_cmd, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "0",
         "--include-dashboard", "false", "--temp-dir", str(tmp), *common],
        env=env, stdout=open(tmp / "head.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    nodes = [head]
    try:
        ray.init(address=address, log_to_driver=False, configure_logging=False)  # waits for the head
        worker = subprocess.Popen(
            [ray_cmd, "start", "--address", address, "--node-ip-address", "127.0.0.1", "--num-cpus", "2", *common],
            env=env, stdout=open(tmp / "worker.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True)
        nodes.append(worker)
        deadline = time.monotonic() + START_TIMEOUT_S
        while ray.cluster_resources().get("CPU", 0) < 2:
            if worker.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Ray worker node did not join; see {tmp / 'worker.log'}")
            time.sleep(0.5)
        yield {"address": address, "worker_sid": worker.pid}
    finally:
        ray.shutdown()
        for node in reversed(nodes):  # --block: SIGTERM makes each node stop what it started
            try:
                os.killpg(node.pid, signal.SIGTERM)
                node.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(node.pid, signal.SIGKILL)


def _compare(r) -> dict:
    """The parts of a verdict that must not depend on where it was computed."""
    d = r.to_dict()
    return {k: d[k] for k in ("status", "mismatch", "guard_violations", "partial", "task", "candidate", "dsl", "backend")}


def test_jobs_carry_sources_and_match_the_local_executor(cluster, tmp_path):
    files = tmp_path / "gone"
    files.mkdir()
    for name in ("tasks/rowscale.py", "candidates/triton_correct.py", "candidates/triton_incorrect.py"):
        shutil.copy(HERE / name, files / Path(name).name)
    jobs = [make_job(str(files / "rowscale.py"), str(files / c), dsl="triton", backend="cpu", options=JOB_OPTIONS)
            for c in ("triton_correct.py", "triton_incorrect.py")]
    local = LocalExecutor(jobs=1).map(jobs)
    sent = [portable(j) for j in jobs]
    assert all(j["task_source"] and j["candidate_source"] for j in sent)
    shutil.rmtree(files)  # the worker can only have the sources
    remote = RayExecutor(address=cluster["address"]).map(sent)
    assert [r.status for r in remote] == ["correct", "incorrect"]
    assert [_compare(r) for r in remote] == [_compare(r) for r in local]


def _run_and_kill(cluster, tmp_path, max_retries: int, kills: int):
    """Submit the slow job, kill the worker process running it ``kills`` times, return the verdict."""
    task = tmp_path / "slow_task.py"
    task.write_text(SLOW_TASK)
    job = make_job(str(task), None, dsl="triton", backend="cpu", options=JOB_OPTIONS,
                   candidate_source=RELU_KERNEL.read_text())
    executor = RayExecutor(address=cluster["address"], max_retries=max_retries)
    results = executor.imap([job])
    killed: list[int] = []
    import threading

    def killer() -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while len(killed) < kills and time.monotonic() < deadline:
            running = [pid for pid, cmd in _session_pids(cluster["worker_sid"]).items()
                       if cmd.startswith("ray::run_job") and pid not in killed]
            if running:
                time.sleep(2.0)  # well inside the job: the model takes SLOW_S seconds to build
                os.kill(running[0], signal.SIGKILL)
                killed.append(running[0])
            time.sleep(0.2)

    thread = threading.Thread(target=killer)
    thread.start()
    [(index, verdict)] = list(results)
    thread.join()
    return index, verdict, killed


def test_a_killed_worker_has_its_job_rerun(cluster, tmp_path):
    index, verdict, killed = _run_and_kill(cluster, tmp_path, max_retries=1, kills=1)
    assert len(killed) == 1, "the job never ran in a worker process of the worker node"
    assert index == 0 and verdict.status == "correct", verdict.feedback


def test_a_job_whose_workers_keep_dying_is_reported(cluster, tmp_path):
    index, verdict, killed = _run_and_kill(cluster, tmp_path, max_retries=0, kills=1)
    assert len(killed) == 1
    assert index == 0 and verdict.status == "crashed"
    assert "the worker running this job died" in verdict.feedback and "WorkerCrashedError" in verdict.feedback
    assert verdict.task.endswith("slow_task.py") and verdict.dsl == "triton"


def test_bench_command_joins_the_cluster(cluster, tmp_path):
    import json

    (tmp_path / "tasks").mkdir()
    (tmp_path / "cands").mkdir()
    shutil.copy(HERE / "tasks" / "rowscale.py", tmp_path / "tasks" / "rowscale.py")
    shutil.copy(HERE / "candidates" / "triton_correct.py", tmp_path / "cands" / "rowscale.py")
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from akg_rag.cli import main; sys.exit(main())", "bench",
         str(tmp_path / "tasks"), str(tmp_path / "cands"), "--dsl", "triton", "--backend", "cpu", "--trials", "1",
         "--no-timing", "--executor", "ray", "--ray-address", cluster["address"], "--json"],
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 0, result.stderr[-3000:]
    [task] = json.loads(result.stdout)["tasks"]
    assert task["name"] == "rowscale" and task["result"]["status"] == "correct"
