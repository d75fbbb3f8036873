"""Shared fixtures: the real embedding model and real Chroma stores (in memory, on disk, server).

* ``embedder`` -- MiniLM from its PyPI package, loaded once per session;
* ``ephemeral_store`` -- an in-memory store isolated from every other one;
* ``persistent_store`` -- an embedded store in the test's tmp_path;
* ``chroma_server`` -- the URL of a real ``chroma run`` server on a free loopback port, started once
  per session and killed at the end; ``server_store`` -- a store on it, emptied for each test;
* ``any_store`` -- each of the three in turn, for tests that must hold in every mode.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Without a GPU, Triton kernels run in-process only under the interpreter, and triton reads
# TRITON_INTERPRET when first imported -- which any capture can trigger (make_fx loads inductor,
# inductor loads triton), even while a test module is being collected. So it is set here, before
# any test module is imported, not only in tests/lower/conftest.py.
if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"
# Lowerings in tests start from the emitted defaults, not from whatever the user has tuned: the
# tuning store points at a file no test writes (tests that tune pass their own store).
os.environ.setdefault("AKG_RAG_TUNING_STORE", os.path.join(os.path.dirname(__file__), ".no-tuning-store.json"))

# Seconds to wait for a fresh `chroma run` to answer its heartbeat (it starts in ~1 s here).
SERVER_START_TIMEOUT_S = 60


@pytest.fixture(scope="session")
def embedder():
    """The real MiniLM embedder (loaded once; a few seconds)."""
    from akg_rag.embedding import make_embedder

    return make_embedder()


@pytest.fixture
def ephemeral_store():
    """A fresh in-memory knowledge store."""
    from akg_rag.store import make_store

    return make_store(ephemeral=True)


@pytest.fixture
def persistent_store(tmp_path):
    """A fresh embedded knowledge store under tmp_path/store."""
    from akg_rag.store import make_store

    return make_store(data_dir=tmp_path / "store")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _heartbeat(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1) as resp:
            return resp.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """URL of a real Chroma server on loopback, for the whole session."""
    exe = Path(sys.executable).parent / "chroma"
    if not exe.exists():
        pytest.skip(f"the chroma CLI is not installed next to {sys.executable}")
    data = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(data / "server.log", "wb")
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while not _heartbeat(url):
            if proc.poll() is not None:
                pytest.fail(f"chroma run exited with {proc.returncode}; see {data / 'server.log'}")
            if time.monotonic() > deadline:
                pytest.fail(f"chroma run did not answer within {SERVER_START_TIMEOUT_S} s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture
def server_store(chroma_server):
    """A store on the session's Chroma server, emptied before the test."""
    from akg_rag.store import make_store

    store = make_store(url=chroma_server)
    store.reset()
    return store


@pytest.fixture(params=["ephemeral", "persistent", pytest.param("server", marks=pytest.mark.server)])
def any_store(request, tmp_path):
    """The same test against an in-memory, an on-disk and a server store."""
    from akg_rag.store import make_store

    if request.param == "ephemeral":
        return make_store(ephemeral=True)
    if request.param == "persistent":
        return make_store(data_dir=tmp_path / "store")
    store = make_store(url=request.getfixturevalue("chroma_server"))
    store.reset()
    return store
