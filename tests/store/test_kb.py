"""``akg_rag.kb`` and ``akg-rag kb`` over a store filled by a real ingest of the fixture corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from akg_rag.cli import main as akg_rag
from akg_rag.kb import list_items, remove_items, show_item, stats
from akg_rag.store import make_store
from ingest.runner import ingest

CORPUS = Path(__file__).resolve().parents[1] / "ingest" / "fixtures" / "corpus"


@pytest.fixture
def filled(tmp_path, embedder):
    """A persistent store holding the fixture corpus's docs and its kernels."""
    from akg_rag.analysis import analyze_task

    tree = tmp_path / "corpus"
    shutil.copytree(CORPUS, tree)
    store = make_store(data_dir=tmp_path / "store")
    report = ingest([tree], store, embedder, analyze=analyze_task)
    assert report.rejected == []
    return store, tmp_path / "store"


def test_list_filters(filled):
    store, _ = filled
    every = list_items(store)
    assert len(every) == store.count("docs") + store.count("kernels")
    kernels = list_items(store, collection="kernels")
    assert {k.label for k in kernels} == {"relu", "softmax"} and {k.origin for k in kernels} == {"seed"}
    triton = list_items(store, dsl="triton")
    assert triton and all(i.dsl == "triton" and i.collection == "docs" for i in triton)
    assert list_items(store, dsl="cpp", backend="cuda") == []
    assert {i.backend for i in list_items(store, backend="cpu")} == {"cpu"}


def test_show_and_remove(filled):
    store, _ = filled
    kernel = list_items(store, collection="kernels")[0]
    collection, item = show_item(store, kernel.id)
    assert collection == "kernels" and "ModelNew" in item.metadata["code"]
    assert show_item(store, "doc:nope:0") is None
    result = remove_items(store, [kernel.id, "doc:nope:0"])
    assert result.removed == [kernel.id] and result.missing == ["doc:nope:0"]
    assert show_item(store, kernel.id) is None


def test_stats_counts(filled):
    store, _ = filled
    got = stats(store)
    assert got["kernels"]["total"] == 2 and got["kernels"]["by_target"] == {"cpp/cpu": 2}
    assert got["kernels"]["by_origin"] == {"seed": 2}
    assert got["docs"]["files"] == 3 and got["docs"]["by_hardware"] == {"h200": 1}
    assert sum(got["docs"]["by_dsl"].values()) == got["docs"]["total"] == store.count("docs")
    assert stats(store, collection="docs", dsl="cpp")["docs"]["by_dsl"] == {"cpp": 2}


def test_cli(filled, capsys):
    store, data = filled
    assert akg_rag(["kb", "stats", "--data-dir", str(data), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["collections"]["kernels"]["total"] == 2

    assert akg_rag(["kb", "list", "--collection", "kernels", "--data-dir", str(data)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "2 entries" and all("cpp/cpu" in line for line in lines[:-1])

    doc_id = list_items(store, collection="docs", dsl="triton")[0].id
    assert akg_rag(["kb", "show", doc_id, "--data-dir", str(data), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["collection"] == "docs" and shown["metadata"]["dsl"] == "triton"

    assert akg_rag(["kb", "show", "doc:missing:0", "--data-dir", str(data)]) == 1
    assert "no entry" in capsys.readouterr().err
    assert akg_rag(["kb", "remove", doc_id, "doc:missing:0", "--data-dir", str(data)]) == 1
    assert store.get("docs", doc_id) is None


def test_cli_unreachable_server_exits_2(capsys):
    assert akg_rag(["kb", "stats", "--chroma-url", "http://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot reach the Chroma server" in err


def test_cli_tunings_lists_the_data_dirs_tuning_store(tmp_path, capsys):
    """`kb tunings` reads <data dir>/tuning.json: one line per configuration, filters, JSON."""
    from akg_rag.lower.tuning_key import TuningKey
    from akg_rag.lower.tuning_store import TuningEntry, TuningStore

    data = tmp_path / "kb"
    assert akg_rag(["kb", "tunings", "--data-dir", str(data)]) == 0           # none yet: not an error
    assert "0 configurations" in capsys.readouterr().out
    store = TuningStore(data / "tuning.json")
    store.put(TuningKey("aa11", "M=1024,N=8192,K=8192", "NVIDIA H200"),
              TuningEntry({"BM": 128, "NUM_WARPS": 4}, 1.62, "2026-12-05T00:00:00+00:00", kind="gemm",
                          dsl="triton", backend="cuda", task="/x/76_Gemm_Add_ReLU.py", speedup_eager=1.41))
    store.put(TuningKey("bb22", "D0=64", "some cpu"),
              TuningEntry({"BLOCK": 256}, None, "2026-12-05T00:00:00+00:00", kind="pointwise", dsl="cpp", backend="cpu"))
    assert akg_rag(["kb", "tunings", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "triton/cuda gemm aa11 [M=1024,N=8192,K=8192] on NVIDIA H200: BM=128 NUM_WARPS=4 (1.62 ms, 1.41x eager; " \
           "76_Gemm_Add_ReLU.py" in out
    assert "cpp/cpu pointwise bb22" in out and "2 configurations" in out
    assert akg_rag(["kb", "tunings", "--store", str(data / "tuning.json"), "--dsl", "cpp", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["entries"]
    assert list(listed) == ["bb22|D0=64|some cpu"] and listed["bb22|D0=64|some cpu"]["tunables"] == {"BLOCK": 256}
    (data / "tuning.json").write_text("{not json")
    assert akg_rag(["kb", "tunings", "--data-dir", str(data)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
