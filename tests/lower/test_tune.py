"""Tuning a lowered candidate on this machine's CPU (C++): the real verifier judges every config.

Each distinct configuration is one C++ build (~25 s or more), so every tune here is one island of
two candidates, generation 0 only: the seed and one neighbour (KBLOCK 4 -> 2 on four rows).
"""

from __future__ import annotations

import json

import pytest

from akg_rag.lower.assemble import lower_task
from akg_rag.lower.tune import TuneSettings, tune_task
from akg_rag.lower.tuned import StoredTuning, key_of
from akg_rag.lower.tuning_store import TuningStore
from akg_rag.search.tunables import tunable_values
from akg_rag.sketch import check_sketch
from akg_rag.verify.options import VerifyOptions
from tests.lower.test_tuning_key import SOFTMAX

pytestmark = pytest.mark.slow

SETTINGS = TuneSettings(islands=1, population=2, generations=0)
OPTIONS = VerifyOptions(trials=2, timing_budget_s=0.3, compile_baseline=False)


def _store_key(store: TuningStore, path):
    _, report = lower_task(path, "cpp", "cpu")
    (k,) = report.kernels
    device = StoredTuning.for_backend("cpu", store).device
    return key_of(k.sketch, check_sketch(k.sketch), k.sizes, "cpp", "cpu", device)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """One tune of a (4, 33) softmax: its log, store and paths."""
    root = tmp_path_factory.mktemp("tune")
    task = root / "softmax.py"
    task.write_text("import torch\nimport torch.nn as nn\n" + SOFTMAX.format(rows=4, cols=33))
    store = TuningStore(root / "tuning.json")
    lines: list[str] = []
    log = tune_task(task, "cpp", "cpu", root / "out", settings=SETTINGS, options=OPTIONS, store=store,
                    progress=lines.append)
    return {"root": root, "task": task, "store": store, "log": log, "lines": lines}


def test_a_small_reduction_tunes_to_a_correct_config_and_writes_the_store(tuned):
    log, store = tuned["log"], tuned["store"]
    assert log["verified"] == 2 and log["stopped"] == "generations"
    assert log["best"]["fitness"]["status"] == "correct" and log["best"]["fitness"]["meaningful"]
    best = log["best"]["tunables"]["K0_KBLOCK"]
    assert best in (2, 4)                                       # the seed (4) or its neighbour (2)
    entry = store.get(_store_key(store, tuned["task"]))
    assert entry is not None and entry.tunables == {"KBLOCK": best} and entry.kind == "reduction"
    assert entry.ms == log["best"]["fitness"]["timings"]["candidate_ms"] > 0
    out = tuned["root"] / "out"
    assert tunable_values((out / "best.py").read_text())["K0_KBLOCK"] == best
    verdicts = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    assert sorted(v["tunables"]["K0_KBLOCK"] for v in verdicts) == [2, 4]
    assert any(line.startswith("generation 0: best") for line in tuned["lines"])
    assert json.loads((out / "tuning.json").read_text())["best"] == log["best"]


def test_a_similar_task_starts_from_the_stored_config(tuned, tmp_path):
    similar = tmp_path / "similar.py"                            # (3, 50): the same bucket as (4, 33)
    similar.write_text("import torch\nimport torch.nn as nn\n" + SOFTMAX.format(rows=3, cols=50))
    source, report = lower_task(similar, "cpp", "cpu", tuning=StoredTuning.for_backend("cpu", tuned["store"]))
    best = tuned["log"]["best"]["tunables"]["K0_KBLOCK"]
    assert report.kernels[0].tuning["source"] == "store"
    assert tunable_values(source)["K0_KBLOCK"] == best


def test_a_tune_started_again_resumes_from_its_journal(tuned):
    log = tune_task(tuned["task"], "cpp", "cpu", tuned["root"] / "out", settings=SETTINGS, options=OPTIONS,
                    store=tuned["store"])
    assert log["resumed"] and log["verified"] == 0 and log["reused"] == 2
    assert log["best"]["key"] == tuned["log"]["best"]["key"]


def test_a_config_that_breaks_correctness_is_rejected_and_never_stored(tmp_path):
    task = tmp_path / "softmax.py"
    task.write_text("import torch\nimport torch.nn as nn\n" + SOFTMAX.format(rows=4, cols=33))
    source, _ = lower_task(task, "cpp", "cpu")
    # a kernel whose grid ignores KBLOCK: right only at KBLOCK = 4, rows left unwritten below it
    grid = "akg::floordiv(((s_D0 + K0_KBLOCK) - 1), K0_KBLOCK)"
    assert grid in source
    broken = source.replace(grid, "akg::floordiv(((s_D0 + 4) - 1), 4)")
    store = TuningStore(tmp_path / "tuning.json")
    log = tune_task(task, "cpp", "cpu", tmp_path / "out", settings=SETTINGS, options=OPTIONS, store=store,
                    seed_source=broken)
    verdicts = {json.loads(line)["tunables"]["K0_KBLOCK"]: json.loads(line)["fitness"]
                for line in (tmp_path / "out" / "verdicts.jsonl").read_text().splitlines()}
    assert verdicts[2]["status"] == "incorrect" and verdicts[4]["status"] == "correct"
    assert log["best"]["tunables"] == {"K0_KBLOCK": 4}
    assert [e.tunables for e in store.entries().values()] == [{"KBLOCK": 4}]


def test_triton_under_the_interpreter_tunes_for_correctness_and_stores_nothing(tmp_path):
    task = tmp_path / "softmax.py"
    task.write_text("import torch\nimport torch.nn as nn\n" + SOFTMAX.format(rows=4, cols=33))
    store = TuningStore(tmp_path / "tuning.json")
    log = tune_task(task, "triton", "cuda", tmp_path / "out", settings=SETTINGS,
                    options=VerifyOptions(trials=1, compile_baseline=False), store=store, verify_backend="cpu")
    knobs = {k["param"]: k["values"] for k in log["knobs"]}
    assert knobs == {"KBLOCK": [1, 2, 4], "NUM_WARPS": [1, 2, 4, 8, 16], "NUM_STAGES": [3]}
    assert log["verified"] == 2 and log["best"]["fitness"]["status"] == "correct"
    assert not log["best"]["fitness"]["meaningful"]
    assert log["store"]["written"] == [] and "not meaningful" in log["store"]["note"] and store.entries() == {}
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["kernels"][0]["sizes"] == {"D0": 4, "D1": 33}


def test_a_killed_tune_keeps_its_best_and_resumes(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    task = tmp_path / "softmax.py"
    task.write_text("import torch\nimport torch.nn as nn\n" + SOFTMAX.format(rows=4, cols=33))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "akg_rag.lower", str(task), "--dsl", "triton", "--backend", "cuda",
           "--verify-backend", "cpu", "--tune", "--islands", "1", "--population", "3", "--generations", "0",
           "--trials", "1", "--store", str(tmp_path / "tuning.json"), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    journal = out / "verdicts.jsonl"
    deadline = time.monotonic() + 600
    while not (journal.exists() and journal.read_text().count("\n") >= 1) and time.monotonic() < deadline:
        assert proc.poll() is None, "the tune ended before it could be killed"
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)                          # mid generation 0: 1 of 3 verified
    proc.wait()
    assert (out / "best.py").exists() and json.loads((out / "tuning.json").read_text())["stopped"] == "running"
    done = subprocess.run(cmd + ["--json"], env=env, capture_output=True, text=True, timeout=900)
    log = json.loads(done.stdout)
    assert log["resumed"] and log["reused"] >= 1 and log["verified"] + log["reused"] == 3
    assert log["best"]["fitness"]["status"] == "correct"
