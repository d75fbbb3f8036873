"""One embedded Chroma store shared by several processes: a lock file and a fresh view for each.

An embedded Chroma (``PersistentClient``) keeps a process-local, in-memory view of the vector
segments. Rows another process writes reach the SQLite tables at once, but not that view: reading
their embeddings then fails inside Chroma (``InternalError: Error finding id``), and a writer with
an old view could persist an index that lacks the other process's rows. Two rules make the store
safe to share between processes on one machine:

* **a lock file** (``akg-rag.lock`` in the data directory, ``flock``): writers hold it exclusive
  for the whole write, readers hold it shared for each operation, so nobody reads a half-written
  index and the revision bump is a read-modify-write nobody interleaves with;
* **a fresh view**: every write stamps the collection with a new write token (see
  :mod:`akg_rag.store`). Each process remembers the last token it wrote or loaded; a different
  token means another process wrote, and the process drops its Chroma system and opens a new one
  (~20 ms) before it reads or writes.

Chroma shares one system per data directory inside a process, so this state is kept per directory
for the whole process (:func:`shared`), and every :class:`~akg_rag.store.KnowledgeStore` on that
directory takes its client from here. Processes on other machines cannot share a lock file: they
must use a Chroma server (``chroma run``), which serialises writes itself.
"""

from __future__ import annotations

import fcntl
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

LOCK_NAME = "akg-rag.lock"

_REGISTRY: dict[str, "EmbeddedDir"] = {}
_REGISTRY_LOCK = threading.Lock()


class EmbeddedDir:
    """The process's view of one embedded data directory: its client, lock and known write tokens."""

    def __init__(self, path: Path, settings: Any):
        self.path = path
        self.settings = settings
        self.known: dict[str, Any] = {}  # collection name -> last (revision, token) this process saw
        self.generation = 0  # bumped on every reopen, so stores know their client is gone
        self._thread_lock = threading.RLock()  # one operation at a time per directory and process
        self._depth = 0
        self._exclusive = False
        self._fd = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        self.client: Any = None
        with self.hold(exclusive=True):  # never load a view while another process writes
            self._connect()

    def _connect(self) -> None:
        """Open the client and note the write stamp of each collection the view was loaded at."""
        import chromadb
        from chromadb.errors import NotFoundError

        from akg_rag.store import COLLECTIONS, _stamp

        self.client = chromadb.PersistentClient(path=str(self.path), settings=self.settings)
        for name in COLLECTIONS:
            try:
                self.known[name] = _stamp(self.client.get_collection(name, embedding_function=None).metadata)
            except NotFoundError:
                pass

    @contextmanager
    def hold(self, exclusive: bool) -> Iterator[None]:
        """Hold the directory: shared for reads, exclusive for writes (re-entrant in one thread).

        A read nested in a write keeps the exclusive lock; a write nested in a read is a bug
        (``flock`` would silently convert the shared lock), so it raises.
        """
        with self._thread_lock:
            if self._depth == 0:
                fcntl.flock(self._fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
                self._exclusive = exclusive
            elif exclusive and not self._exclusive:
                raise RuntimeError("a store write was started inside a read of the same store")
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)

    def reopen(self) -> None:
        """Drop this process's Chroma system for the directory and open a fresh one.

        Called (with the lock held) when another process wrote: the new system loads the vector
        segments from disk as they are now.
        """
        from chromadb.api.shared_system_client import SharedSystemClient

        system = SharedSystemClient._identifier_to_system.pop(str(self.path), None)
        SharedSystemClient._identifier_to_refcount.pop(str(self.path), None)
        if system is not None:
            system.stop()
        self.known.clear()
        self._connect()
        self.generation += 1


def shared(path: Path, settings: Any) -> EmbeddedDir:
    """The process-wide :class:`EmbeddedDir` of ``path`` (created on first use)."""
    key = str(path.resolve())
    with _REGISTRY_LOCK:
        entry = _REGISTRY.get(key)
        if entry is None:
            entry = _REGISTRY[key] = EmbeddedDir(path, settings)
        return entry
