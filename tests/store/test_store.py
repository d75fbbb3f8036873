"""The knowledge store over real Chroma: locations, collections, revisions, batched writes, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from akg_rag.errors import ConfigError, StoreError
from akg_rag.store import COLLECTIONS, default_data_dir, make_store, parse_url


def _rows(n: int, dim: int = 4, start: int = 0):
    rng = np.random.default_rng(start)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"id{start + i}" for i in range(n)]
    docs = [f"text {start + i}" for i in range(n)]
    metas = [{"k": start + i, "even": (start + i) % 2 == 0} for i in range(n)]
    return ids, vectors, docs, metas


def test_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("AKG_RAG_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "akg-rag"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "akg-rag"
    monkeypatch.setenv("AKG_RAG_DATA_DIR", str(tmp_path / "env"))
    assert default_data_dir() == tmp_path / "env"
    monkeypatch.delenv("AKG_RAG_CHROMA_URL", raising=False)
    assert make_store().location == str(tmp_path / "env")
    assert make_store(data_dir=tmp_path / "flag").location == str(tmp_path / "flag")
    assert (tmp_path / "flag" / "chroma.sqlite3").exists()


def test_data_dir_flag_beats_url_env(monkeypatch, tmp_path):
    monkeypatch.setenv("AKG_RAG_CHROMA_URL", "http://127.0.0.1:1")
    store = make_store(data_dir=tmp_path / "d")
    assert store.location == str(tmp_path / "d")
    with pytest.raises(StoreError, match="127.0.0.1:1"):
        make_store()  # no flag: the env URL is used, and nothing listens there


def test_unreachable_server_is_one_clear_error():
    with pytest.raises(StoreError) as info:
        make_store(url="http://127.0.0.1:1")
    message = str(info.value)
    assert "http://127.0.0.1:1" in message and "chroma run --path DIR --port N" in message
    assert "\n" not in message


@pytest.mark.parametrize("url", ["localhost:8000", "ftp://h:1", "http://h:notaport", "http://"])
def test_bad_url_is_config_error(url):
    with pytest.raises(ConfigError, match="bad Chroma URL"):
        parse_url(url)


def test_data_dir_and_url_together_is_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not both"):
        make_store(data_dir=tmp_path, url="http://127.0.0.1:8000")


def test_unusable_data_dir_is_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError, match="--data-dir"):
        make_store(data_dir=blocker / "store")


def test_collections_are_cosine_without_embedding_function(any_store):
    for name in COLLECTIONS:
        config = any_store.collection(name).configuration_json
        assert config["hnsw"]["space"] == "cosine"
        assert config.get("embedding_function") is None
    with pytest.raises(ConfigError, match="allowed: docs, kernels"):
        any_store.collection("other")


def test_ephemeral_stores_are_isolated():
    a, b = make_store(ephemeral=True), make_store(ephemeral=True)
    ids, vectors, docs, metas = _rows(3)
    a.upsert("docs", ids, vectors, docs, metas)
    assert a.count("docs") == 3 and b.count("docs") == 0


def test_writes_bump_revision_reads_do_not(any_store):
    s = any_store
    r0 = s.revision("docs")
    ids, vectors, docs, metas = _rows(4)
    s.upsert("docs", ids, vectors, docs, metas)
    r1 = s.revision("docs")
    assert r1 > r0
    assert s.revision("kernels") == s.revision("kernels")  # other collection untouched by reads
    s.get("docs", "id0")
    s.get_many("docs", where={"even": True})
    assert s.revision("docs") == r1
    s.update_metadata("docs", ["id1"], [{"k": 100, "even": False}])
    r2 = s.revision("docs")
    assert r2 > r1 and s.get("docs", "id1").metadata["k"] == 100
    assert s.delete("docs", where={"even": True}) == 2
    assert s.revision("docs") > r2
    assert sorted(i.id for i in s.get_many("docs")) == ["id1", "id3"]


def test_round_trip_get_and_missing(any_store):
    ids, vectors, docs, metas = _rows(2)
    any_store.upsert("kernels", ids, vectors, docs, metas)
    item = any_store.get("kernels", "id1", embedding=True)
    assert item.document == "text 1" and item.metadata == {"k": 1, "even": False}
    np.testing.assert_allclose(np.asarray(item.embedding), vectors[1], atol=1e-6)
    assert any_store.get("kernels", "nope") is None
    assert any_store.delete("kernels", ids=["nope"]) == 0


def test_upsert_and_read_in_batches(ephemeral_store, monkeypatch):
    s = ephemeral_store
    s.max_batch = 7  # force many write batches
    ids, vectors, docs, metas = _rows(30)
    s.upsert("docs", ids, vectors, docs, metas)
    assert s.count("docs") == 30
    monkeypatch.setattr("akg_rag.store.PAGE_SIZE", 4)  # force paging on reads
    assert sorted(i.id for i in s.get_many("docs")) == sorted(ids)
    assert len(s.get_many("docs", ids=ids)) == 30


def test_reset_empties_but_revision_keeps_growing(any_store):
    ids, vectors, docs, metas = _rows(5)
    any_store.upsert("docs", ids, vectors, docs, metas)
    before = any_store.revision("docs")
    assert any_store.reset() == 5
    assert any_store.count("docs") == 0 and any_store.count("kernels") == 0
    assert any_store.revision("docs") > before


def test_persistent_store_survives_reopen(tmp_path):
    ids, vectors, docs, metas = _rows(3)
    first = make_store(data_dir=tmp_path / "s")
    first.upsert("docs", ids, vectors, docs, metas)
    revision = first.revision("docs")
    again = make_store(data_dir=tmp_path / "s")
    assert again.count("docs") == 3 and again.revision("docs") == revision
    assert Path(again.location) == tmp_path / "s"


def test_server_url_from_env(monkeypatch, chroma_server):
    monkeypatch.setenv("AKG_RAG_CHROMA_URL", chroma_server)
    assert make_store().location == chroma_server


def test_reset_frees_the_vector_width(any_store):
    ids, vectors, docs, metas = _rows(2, dim=4)
    any_store.upsert("docs", ids, vectors, docs, metas)
    any_store.reset()
    ids, vectors, docs, metas = _rows(2, dim=8)
    any_store.upsert("docs", ids, vectors, docs, metas)  # a fresh collection takes any width
    assert any_store.count("docs") == 2
    assert any_store.collection("docs").configuration_json["hnsw"]["space"] == "cosine"
