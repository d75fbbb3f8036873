"""Several processes on one store: readers see writers' rows, no write is lost, resets show.

Each test starts real separate Python processes (tests/store/writer.py) against an embedded store
in tmp_path and, marked ``server``, against the session's real ``chroma run`` server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from akg_rag.retrieval import Retriever
from akg_rag.retrieval.results import Query
from akg_rag.store import make_store

sys.path.insert(0, str(Path(__file__).parent))
from writer import records  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("writer.py")
WRITER_TIMEOUT_S = 120  # each writer process: imports chromadb (~3 s) and writes a few rows


def spawn(where: str, *args: object) -> subprocess.Popen:
    """Start the writer process on ``where`` (data dir or URL)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, str(WRITER), where, *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(*procs: subprocess.Popen) -> None:
    """Wait for writer processes; fail with their stderr if one failed."""
    for p in procs:
        out, err = p.communicate(timeout=WRITER_TIMEOUT_S)
        assert p.returncode == 0 and "done" in out, err[-2000:]


@pytest.fixture(params=["embedded", pytest.param("server", marks=pytest.mark.server)])
def where(request, tmp_path) -> str:
    """An empty store location shared by this process and the writers: a directory or a URL."""
    if request.param == "embedded":
        return str(tmp_path / "store")
    url = request.getfixturevalue("chroma_server")
    make_store(url=url).reset()
    return url


def open_store(where: str):
    """This process's store on ``where``."""
    return make_store(url=where) if where.startswith("http") else make_store(data_dir=where)


class NoEmbedder:
    """The tests query by vector; nothing may embed text."""

    def embed(self, texts):  # pragma: no cover - reaching this is the failure
        raise AssertionError("no text embedding in these tests")


def query_all(retriever: Retriever, k: int = 100) -> set[str]:
    """Ids of every cpp/cpu record, through the whole three-stage query (index, fetch and all)."""
    q = Query("q", dsl="cpp", backend="cpu", k=k)
    vector = np.ones(8, dtype=np.float32)
    return {h.id for h in retriever.search_vector(vector, q, docs=0).hits}


def test_reader_sees_another_process_writes(where):
    store = open_store(where)
    store.upsert("kernels", *records(0, 4))
    retriever = Retriever(store, NoEmbedder())
    assert query_all(retriever) == {f"r{i}" for i in range(4)}  # index loaded and cached
    finish(spawn(where, "write", 100, 3))
    got = store.get_many("kernels", include=("embeddings",))  # failed before: "Error finding id"
    assert len(got) == 7 and all(item.embedding is not None for item in got)
    assert query_all(retriever) == {f"r{i}" for i in range(4)} | {"r100", "r101", "r102"}


def test_concurrent_writers_lose_nothing(where):
    store = open_store(where)
    store.upsert("kernels", *records(0, 2))
    retriever = Retriever(store, NoEmbedder())
    assert len(query_all(retriever)) == 2
    before = store.revision("kernels")
    n_procs, n_rows, rounds = 3, 4, 5
    finish(*[spawn(where, "write", 1000 * (p + 1), n_rows, rounds) for p in range(n_procs)])
    expected = {f"r{i}" for i in range(2)} | {
        f"r{1000 * (p + 1) + i}" for p in range(n_procs) for i in range(n_rows * rounds)}
    assert {item.id for item in store.get_many("kernels", include=("embeddings",))} == expected
    assert query_all(retriever) == expected
    if not where.startswith("http"):
        # the lock file serialises the read-modify-write of the counter: two bumps per write, exactly
        assert store.revision("kernels") == before + 2 * n_procs * rounds
    else:
        assert store.revision("kernels") > before


def test_reset_elsewhere_keeps_live_retrievers_working(where):
    store = open_store(where)
    store.upsert("kernels", *records(0, 3))
    retriever = Retriever(store, NoEmbedder())
    assert len(query_all(retriever)) == 3
    finish(spawn(where, "reset", 500, 2))  # another process: reset, then two new rows
    assert query_all(retriever) == {"r500", "r501"}
    assert store.count("kernels") == 2 and store.get("kernels", "r500") is not None


def test_reset_in_process_keeps_live_retrievers_working(where):
    store, other = open_store(where), open_store(where)
    store.upsert("kernels", *records(0, 3))
    retriever = Retriever(store, NoEmbedder())
    assert len(query_all(retriever)) == 3
    other.reset()
    assert query_all(retriever) == set()
    other.upsert("kernels", *records(40, 2))
    assert query_all(retriever) == {"r40", "r41"}
    assert store.count("kernels") == 2
