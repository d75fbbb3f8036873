"""benchmarks/kernelbench.py: which candidates a run picks, and how result files merge.

No verification runs here; a folder laid out like a KernelBench checkout is made of the project's
own suite tasks, and result rows are written the way a run appends them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kb_mod():
    spec = importlib.util.spec_from_file_location("bench_kernelbench", ROOT / "benchmarks" / "kernelbench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def layout(tmp_path):
    tasks = sorted((ROOT / "benchmarks" / "tasks").glob("*.py"))[:4]
    kb = tmp_path / "kb" / "level1"
    kb.mkdir(parents=True)
    for i, t in enumerate(tasks, 1):
        shutil.copy(t, kb / f"{i}_{t.stem}.py")
    return tmp_path / "kb", tmp_path / "cands", [f"level1/{i}_{t.stem}" for i, t in enumerate(tasks, 1)]


def _args(kb, cands, results, **kw):
    base = dict(kb=str(kb), candidates=str(cands), levels=[1], kinds=["lowered"], results=str(results),
                shard="0/1", only_correct=None)
    base.update(kw)
    return argparse.Namespace(**base)


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_jobs_skip_done_and_follow_shard(kb_mod, layout, tmp_path):
    kb, cands, keys = layout
    results = tmp_path / "r.jsonl"
    _write(results, [{"problem": keys[0], "kind": "lowered", "status": "correct"}])
    todo = [j[0] for j in kb_mod._jobs(_args(kb, cands, results))]
    assert todo == keys[1:]
    odd = [j[0] for j in kb_mod._jobs(_args(kb, cands, tmp_path / "none.jsonl", shard="1/2"))]
    assert odd == [keys[1], keys[3]]


def test_only_correct_selects_from_a_sweep(kb_mod, layout, tmp_path):
    kb, cands, keys = layout
    sweep = tmp_path / "sweep.jsonl"
    _write(sweep, [{"problem": keys[0], "kind": "lowered", "status": "correct", "timed": False},
                   {"problem": keys[1], "kind": "lowered", "status": "incorrect", "timed": False},
                   {"problem": keys[2], "kind": "lowered", "status": "correct", "timed": False}])
    todo = kb_mod._jobs(_args(kb, cands, tmp_path / "timed.jsonl", only_correct=str(sweep)))
    assert [j[0] for j in todo] == [keys[0], keys[2]]


def test_untimed_row_never_replaces_a_timed_one(kb_mod, tmp_path):
    timed = tmp_path / "timed.jsonl"
    sweep = tmp_path / "sweep.jsonl"
    _write(timed, [{"problem": "level1/1_a", "kind": "lowered", "status": "correct", "speedup_eager": 1.5}])
    _write(sweep, [{"problem": "level1/1_a", "kind": "lowered", "status": "correct", "timed": False},
                   {"problem": "level1/2_b", "kind": "lowered", "status": "incorrect", "timed": False}])
    by = kb_mod._load([str(timed), str(sweep)])
    assert by["level1/1_a"]["lowered"]["speedup_eager"] == 1.5
    assert by["level1/2_b"]["lowered"]["status"] == "incorrect"
    # a later timed verdict does replace an earlier one (a rerun after a fix)
    _write(tmp_path / "rerun.jsonl", [{"problem": "level1/1_a", "kind": "lowered", "status": "incorrect",
                                        "timed": True}])
    by = kb_mod._load([str(timed), str(tmp_path / "rerun.jsonl")])
    assert by["level1/1_a"]["lowered"]["status"] == "incorrect"
