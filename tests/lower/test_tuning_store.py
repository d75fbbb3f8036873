"""The tuning store: round trips, where it lives, a broken file, and concurrent writers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from akg_rag.errors import ConfigError
from akg_rag.lower.tuning_key import TuningKey
from akg_rag.lower.tuning_store import TuningEntry, TuningStore, default_path, now

ROOT = Path(__file__).resolve().parents[2]


def test_an_entry_round_trips_and_replaces_the_one_under_its_key(tmp_path):
    store = TuningStore(tmp_path / "t.json")
    key = TuningKey("abc", "D0=4,D1=64", "cpu x")
    assert store.get(key) is None
    store.put(key, TuningEntry({"KBLOCK": 2}, 0.5, now(), "reduction", "cpp", "cpu", "t.py", 1.3))
    store.put(TuningKey("abc", "D0=8,D1=64", "cpu x"), TuningEntry({"KBLOCK": 8}, 0.7, now()))
    got = store.get(key)
    assert got is not None and got.tunables == {"KBLOCK": 2} and got.ms == 0.5 and got.kind == "reduction"
    assert got.key == {"signature": "abc", "bucket": "D0=4,D1=64", "device": "cpu x"}
    store.put(key, TuningEntry({"KBLOCK": 4}, 0.4, now()))
    assert store.get(key).tunables == {"KBLOCK": 4} and len(store.entries()) == 2


def test_default_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("AKG_RAG_TUNING_STORE", raising=False)
    monkeypatch.delenv("AKG_RAG_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "akg-rag" / "tuning.json"
    monkeypatch.setenv("AKG_RAG_DATA_DIR", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "tuning.json"
    monkeypatch.setenv("AKG_RAG_TUNING_STORE", str(tmp_path / "mine.json"))
    assert TuningStore().path == tmp_path / "mine.json"


def test_a_broken_file_is_reported_not_overwritten(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("{not json")
    store = TuningStore(path)
    with pytest.raises(ConfigError, match="not valid JSON"):
        store.put(TuningKey("a", "b", "c"), TuningEntry({"X": 1}, None, now()))
    assert path.read_text() == "{not json"


WRITER = """
import sys
from akg_rag.lower.tuning_key import TuningKey
from akg_rag.lower.tuning_store import TuningEntry, TuningStore, now
store = TuningStore(sys.argv[1])
for i in range(int(sys.argv[3])):
    store.put(TuningKey(sys.argv[2], f"N={i}", "cpu"), TuningEntry({"BLOCK": i + 1}, float(i), now()))
"""


def test_concurrent_writers_lose_no_entry(tmp_path):
    path, n = tmp_path / "t.json", 40
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), who, str(n)], env=env)
             for who in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    entries = TuningStore(path).entries()
    assert len(entries) == 2 * n
    assert entries[f"b|N={n - 1}|cpu"].tunables == {"BLOCK": n}


def test_reading_a_missing_store_creates_nothing(tmp_path):
    store = TuningStore(tmp_path / "sub" / "t.json")
    assert store.get(TuningKey("a", "b", "c")) is None and store.entries() == {}
    assert not (tmp_path / "sub").exists()
