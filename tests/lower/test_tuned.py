"""Lowering reads the tuning store: a kernel whose key is stored starts from the stored tunables."""

from __future__ import annotations

from akg_rag.lower.assemble import lower_task
from akg_rag.lower.tuned import StoredTuning, describe, key_of
from akg_rag.lower.tuning_store import TuningEntry, TuningStore, now
from akg_rag.search.tunables import tunable_values
from akg_rag.sketch import check_sketch
from tests.lower.test_tuning_key import SOFTMAX


def _store_for(write_task, tmp_path, dsl: str, backend: str, value: int) -> StoredTuning:
    """A store holding KBLOCK=value for the (4, 33) softmax's key."""
    _, report = lower_task(write_task(SOFTMAX.format(rows=4, cols=33), "tuned"), dsl, backend)
    (k,) = report.kernels
    store = TuningStore(tmp_path / "t.json")
    tuning = StoredTuning(store, "test-device")
    extra = {"NUM_WARPS": 2} if dsl == "triton" else {}
    store.put(key_of(k.sketch, check_sketch(k.sketch), k.sizes, dsl, backend, tuning.device),
              TuningEntry({"KBLOCK": value, **extra}, 0.25, now(), k.kind, dsl, backend, "tuned.py"))
    return tuning


def test_a_task_in_the_same_bucket_starts_from_the_stored_tunables(write_task, tmp_path):
    tuning = _store_for(write_task, tmp_path, "cpp", "cpu", 2)
    source, report = lower_task(write_task(SOFTMAX.format(rows=3, cols=50), "similar"), "cpp", "cpu", tuning=tuning)
    (k,) = report.kernels
    assert k.tuning["source"] == "store" and k.tuning["tunables"] == {"KBLOCK": 2}
    assert k.tunables == {"K0_KBLOCK": 2} and tunable_values(source)["K0_KBLOCK"] == 2
    assert describe(k.tuning).startswith("tuned config from store (KBLOCK=2; 0.25 ms")


def test_another_bucket_or_device_keeps_the_defaults(write_task, tmp_path):
    tuning = _store_for(write_task, tmp_path, "cpp", "cpu", 2)
    source, report = lower_task(write_task(SOFTMAX.format(rows=4, cols=300), "other"), "cpp", "cpu", tuning=tuning)
    assert report.kernels[0].tuning["source"] == "default" and tunable_values(source)["K0_KBLOCK"] == 4
    elsewhere = StoredTuning(tuning.store, "another-device")
    _, report = lower_task(write_task(SOFTMAX.format(rows=3, cols=50), "similar"), "cpp", "cpu", tuning=elsewhere)
    assert report.kernels[0].tuning["source"] == "default"


def test_triton_candidates_take_stored_launch_options_too(write_task, tmp_path):
    tuning = _store_for(write_task, tmp_path, "triton", "cuda", 1)
    source, report = lower_task(write_task(SOFTMAX.format(rows=3, cols=50), "similar"), "triton", "cuda", tuning=tuning)
    values = tunable_values(source)
    assert values["K0_KBLOCK"] == 1 and values["K0_NUM_WARPS"] == 2 and values["K0_NUM_STAGES"] == 3
    assert report.kernels[0].tuning["source"] == "store"


def test_an_unreadable_store_leaves_the_defaults_and_says_why(write_task, tmp_path):
    (tmp_path / "bad.json").write_text("[")
    tuning = StoredTuning(TuningStore(tmp_path / "bad.json"), "d")
    source, report = lower_task(write_task(SOFTMAX.format(rows=3, cols=50), "similar"), "cpp", "cpu", tuning=tuning)
    assert report.kernels[0].tuning["source"] == "default" and "not valid JSON" in report.kernels[0].tuning["note"]
