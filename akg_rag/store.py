"""The knowledge store: two Chroma collections, ``docs`` and ``kernels``, behind one small class.

Where the store lives is decided once, in :func:`make_store`:

* a Chroma server when a URL is given (``--chroma-url``, else ``AKG_RAG_CHROMA_URL``);
* otherwise an embedded store under a data directory (``--data-dir``, else ``AKG_RAG_DATA_DIR``,
  else ``$XDG_DATA_HOME/akg-rag``, else ``~/.local/share/akg-rag``) -- never the working directory;
* an in-memory store for tests (``ephemeral=True``), isolated from every other one in the process.

After the client is made every mode takes the same code path. Collections use cosine space and no
embedding function: embeddings are always computed by :mod:`akg_rag.embedding` and passed in.

Every write bumps the collection's *revision*, an int kept in the collection metadata, and stamps a
fresh write token beside it; readers cache an index keyed on :class:`Version` (collection id,
revision, token), so no write and no reset goes unseen. Several processes may share an embedded
store on one machine (a lock file serialises writers and each process reloads its view after
another's write, see :mod:`akg_rag.embedded`); processes on several machines need a server.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Sequence
from urllib.parse import urlparse

from akg_rag.errors import AkgError, ConfigError, StoreError

CollectionName = Literal["docs", "kernels"]
COLLECTIONS: tuple[str, ...] = ("docs", "kernels")

DATA_DIR_ENV = "AKG_RAG_DATA_DIR"
URL_ENV = "AKG_RAG_CHROMA_URL"
REVISION_KEY = "akg_revision"
WRITE_KEY = "akg_write"  # a fresh random token per write: see Version
# Seconds to wait, one after another, for a collection another client is resetting (server mode).
RESET_WAITS_S = (0.05, 0.1, 0.2, 0.4, 0.8)
# Rows per get() page when reading a whole collection; keeps each response small on a server.
PAGE_SIZE = 1000


@dataclass
class StoredItem:
    """One row of a collection as read back: id, document, flat metadata, optional embedding."""

    id: str
    document: str | None
    metadata: dict[str, Any] = field(default_factory=dict)
    embedding: Any = None


def default_data_dir() -> Path:
    """``$AKG_RAG_DATA_DIR``, else ``$XDG_DATA_HOME/akg-rag``, else ``~/.local/share/akg-rag``."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "akg-rag"


def parse_url(url: str) -> tuple[str, int, bool]:
    """Split ``http(s)://host:port`` into (host, port, ssl); raise ConfigError on anything else."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"bad Chroma URL {url!r}: expected http://HOST:PORT or https://HOST:PORT")
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    except ValueError:
        raise ConfigError(f"bad Chroma URL {url!r}: the port is not a number in 1-65535") from None
    return parsed.hostname, port, parsed.scheme == "https"


def _settings(**extra: Any) -> Any:
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, **extra)


def _make_client(data_dir: str | Path | None, url: str | None, ephemeral: bool) -> tuple[Any, str, Any]:
    """Create the Chroma client for the chosen mode: (client, human-readable location, shared dir).

    The third item is the :class:`~akg_rag.embedded.EmbeddedDir` of an embedded store (None for the
    other modes): it owns the client, which it replaces when another process writes.
    """
    import chromadb

    if ephemeral:
        # Ephemeral clients in one process share a single in-memory system; a fresh database per
        # store keeps tests and callers from seeing each other's rows.
        database = f"akg_{uuid.uuid4().hex}"
        chromadb.AdminClient(_settings(is_persistent=False)).create_database(database)
        return chromadb.EphemeralClient(settings=_settings(), database=database), "memory", None
    if url:
        host, port, ssl = parse_url(url)
        try:
            client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=_settings())
            client.heartbeat()
        except Exception as e:  # noqa: BLE001 - any connection failure becomes one clear line
            raise StoreError(
                f"cannot reach the Chroma server at {url} ({type(e).__name__}: {e}); "
                "start one with `chroma run --path DIR --port N` or drop --chroma-url/AKG_RAG_CHROMA_URL "
                "to use the embedded store"
            ) from None
        return client, url, None
    from akg_rag.embedded import shared

    path = Path(data_dir).expanduser() if data_dir else default_data_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
        entry = shared(path.resolve(), _settings())
    except Exception as e:  # noqa: BLE001 - unreadable dir, foreign files, version mismatch
        raise StoreError(
            f"cannot open the knowledge store in {path} ({type(e).__name__}: {e}); "
            "choose another directory with --data-dir or AKG_RAG_DATA_DIR"
        ) from None
    return entry.client, str(path), entry


def make_store(data_dir: str | Path | None = None, url: str | None = None, ephemeral: bool = False) -> "KnowledgeStore":
    """Open the knowledge store (see the module docstring for how the location is chosen)."""
    if data_dir and url:
        raise ConfigError("give either a data directory or a Chroma URL, not both")
    if not ephemeral and not data_dir:
        url = url or os.environ.get(URL_ENV) or None
    client, location, embedded = _make_client(data_dir, url, ephemeral)
    try:
        return KnowledgeStore(client, location, embedded=embedded)
    except AkgError:
        raise
    except Exception as e:  # noqa: BLE001 - the server vanished between heartbeat and setup
        raise StoreError(f"cannot open the collections at {location} ({type(e).__name__}: {e})") from None


@dataclass(frozen=True)
class Version:
    """What a cache of a collection is keyed on: the collection's id, write counter and write token.

    The id changes when :meth:`KnowledgeStore.reset` recreates the collection; the token is fresh on
    every write, so two writers that bump the counter at once still leave a version no reader has
    cached (the counter is exact for embedded stores, whose writers hold the lock file).
    """

    collection_id: str
    revision: int
    token: str


class KnowledgeStore:
    """The ``docs`` and ``kernels`` collections of one Chroma client, with batched writes.

    Safe to share: between processes on one machine through the embedded store's lock file (see
    :mod:`akg_rag.embedded`), between machines through a Chroma server. Collection handles are
    looked up per operation, so a :meth:`reset` elsewhere never leaves this object holding a
    deleted collection.
    """

    def __init__(self, client: Any, location: str, embedded: Any = None):
        self._client = client
        self._embedded = embedded
        self.location = location
        # Chroma rejects a write larger than this many rows (5461 for the embedded store).
        self.max_batch = int(client.get_max_batch_size())
        with self._hold(exclusive=True):
            for name in COLLECTIONS:
                self._check(name, self._open(name))

    @property
    def client(self) -> Any:
        """The Chroma client (for an embedded store, the one current after other processes' writes)."""
        return self._embedded.client if self._embedded is not None else self._client

    def _hold(self, exclusive: bool) -> Any:
        """The embedded store's lock (shared to read, exclusive to write); nothing for other modes."""
        return self._embedded.hold(exclusive) if self._embedded is not None else contextlib.nullcontext()

    def reading(self) -> Any:
        """Context manager for a sequence of reads that must see one state of the store.

        For an embedded store it holds the lock file shared, so no other process writes meanwhile;
        for the other modes it does nothing (a server applies each request atomically).
        """
        return self._hold(exclusive=False)

    def _open(self, name: str) -> Any:
        # get_or_create keeps an existing collection's metadata (and so its revision) untouched.
        return self.client.get_or_create_collection(
            name, metadata={"hnsw:space": "cosine"}, embedding_function=None
        )

    def _lookup(self, name: str) -> Any:
        """``get_collection``, waiting out another client's reset (delete then create) on a server."""
        from chromadb.errors import NotFoundError

        for wait_s in RESET_WAITS_S:
            try:
                return self.client.get_collection(name, embedding_function=None)
            except NotFoundError:
                time.sleep(wait_s)
        try:
            return self.client.get_collection(name, embedding_function=None)
        except NotFoundError:
            raise StoreError(
                f"the {name} collection is missing at {self.location}: another client deleted it; "
                "run `akg-ingest` (or `akg-rag kb` after a reset) to recreate it") from None

    def _check(self, name: str, col: Any) -> Any:
        """Return ``col``, or a fresh handle after reopening if another process wrote to ``name``."""
        entry = self._embedded
        if entry is None:
            return col
        stamp = _stamp(col.metadata)
        seen = entry.known.get(name)
        if seen is not None and seen != stamp:
            entry.reopen()  # our in-memory view lacks the other process's rows
            col = self._lookup(name)
            stamp = _stamp(col.metadata)
        entry.known[name] = stamp
        return col

    @property
    def docs(self) -> Any:
        """The ``docs`` Chroma collection (document chunks)."""
        return self.collection("docs")

    @property
    def kernels(self) -> Any:
        """The ``kernels`` Chroma collection (verified kernels, embedded by computation logic)."""
        return self.collection("kernels")

    def collection(self, name: str) -> Any:
        """The Chroma collection called ``name`` ("docs" or "kernels"), freshly looked up.

        The handle is valid until the next write by another process or a reset; look it up again
        for each operation rather than keeping it.
        """
        if name not in COLLECTIONS:
            raise ConfigError(f"unknown collection {name!r}; allowed: {', '.join(COLLECTIONS)}")
        with self._hold(exclusive=False):
            return self._check(name, self._lookup(name))

    def snapshot(self, name: str) -> tuple[Any, Version]:
        """A current handle of the collection and its :class:`Version`, in one lookup."""
        col = self.collection(name)
        meta = col.metadata or {}
        return col, Version(str(col.id), int(meta.get(REVISION_KEY, 0)), str(meta.get(WRITE_KEY, "")))

    def version(self, name: str) -> Version:
        """The collection's :class:`Version`: changes on every write, reset included."""
        return self.snapshot(name)[1]

    def revision(self, name: str) -> int:
        """The collection's write counter: grows on every upsert or delete through this class."""
        return self.version(name).revision

    def _bump(self, name: str) -> None:
        """Count a write: counter + 1 and a fresh token (under the write lock for embedded stores)."""
        col = self._lookup(name)
        meta = dict(col.metadata or {})
        meta[REVISION_KEY] = int(meta.get(REVISION_KEY, 0)) + 1
        meta[WRITE_KEY] = uuid.uuid4().hex[:16]
        # The distance space lives in the collection configuration and may not be re-sent.
        meta.pop("hnsw:space", None)
        col.modify(metadata=meta)
        if self._embedded is not None:
            self._embedded.known[name] = _stamp(meta)  # our own write: our view has it

    def count(self, name: str) -> int:
        """Number of rows in the collection."""
        with self._hold(exclusive=False):
            return int(self.collection(name).count())

    def upsert(
        self,
        name: str,
        ids: Sequence[str],
        embeddings: Any,
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        """Insert or replace rows, in batches Chroma accepts; bumps the revision around the write."""
        self._write(name, "upsert", ids, embeddings=embeddings, documents=documents, metadatas=metadatas)

    def update_metadata(self, name: str, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        """Replace the metadata of existing rows, keeping their documents and embeddings."""
        self._write(name, "update", ids, metadatas=metadatas)

    def _write(self, name: str, op: str, ids: Sequence[str], **columns: Any) -> None:
        """Call ``collection.<op>`` in batches Chroma accepts, bumping the revision around the write.

        Bumped before and after: a reader that cached mid-write, or a write that crashed after
        changing rows in place, still sees a new revision.
        """
        if not ids:
            return
        with self._hold(exclusive=True):
            write = getattr(self.collection(name), op)
            self._bump(name)
            for start in range(0, len(ids), self.max_batch):
                stop = start + self.max_batch
                batch = {key: (col[start:stop] if key == "embeddings" else list(col[start:stop]))
                         for key, col in columns.items()}
                write(ids=list(ids[start:stop]), **batch)
            self._bump(name)

    def delete(self, name: str, ids: Sequence[str] | None = None, where: dict[str, Any] | None = None) -> int:
        """Delete rows by id or by a metadata filter; return how many existed and were deleted."""
        if ids is None and where is None:
            raise ValueError("delete needs ids or where; use reset() to empty a collection")
        with self._hold(exclusive=True):
            doomed = [item.id for item in self.get_many(name, ids=ids, where=where, include=())]
            if not doomed:
                return 0
            col = self.collection(name)
            self._bump(name)
            for start in range(0, len(doomed), self.max_batch):
                col.delete(ids=doomed[start:start + self.max_batch])
            self._bump(name)
            return len(doomed)

    def get(self, name: str, id: str, embedding: bool = False) -> StoredItem | None:
        """The row with this id, or None."""
        include = ("documents", "metadatas", "embeddings") if embedding else ("documents", "metadatas")
        items = self.get_many(name, ids=[id], include=include)
        return items[0] if items else None

    def get_many(
        self,
        name: str,
        ids: Sequence[str] | None = None,
        where: dict[str, Any] | None = None,
        include: Sequence[str] = ("documents", "metadatas"),
    ) -> list[StoredItem]:
        """Rows matching ids and/or a where filter (all rows when both are None), read in pages."""
        with self._hold(exclusive=False):
            col = self.collection(name)
            out: list[StoredItem] = []
            if ids is not None:
                ids = list(ids)
                for start in range(0, len(ids), self.max_batch):
                    res = col.get(ids=ids[start:start + self.max_batch], where=where, include=list(include))
                    out.extend(_items(res))
                return out
            offset = 0
            while True:
                res = col.get(where=where, include=list(include), limit=PAGE_SIZE, offset=offset)
                page = _items(res)
                out.extend(page)
                if len(page) < PAGE_SIZE:
                    return out
                offset += PAGE_SIZE

    def refresh(self) -> None:
        """Drop this process's view of an embedded store and load it again from disk (no-op otherwise).

        Needed only after writes that bypassed this class (and so stamped no write token).
        """
        if self._embedded is not None:
            with self._hold(exclusive=False):
                self._embedded.reopen()

    def reset(self) -> int:
        """Empty both collections; return how many rows they held.

        The collections are dropped and recreated -- deleting rows alone would keep the vector
        width fixed by the first insert -- and each new one starts one revision past the old, with
        a new id and write token, so no cache of the old contents can be mistaken for the new.
        Handles of the old collections die with them: this class looks handles up per operation,
        and the retriever takes its handles from :meth:`snapshot` on every query.
        """
        removed = 0
        with self._hold(exclusive=True):
            for name in COLLECTIONS:
                col = self.collection(name)
                removed += int(col.count())
                revision = int((col.metadata or {}).get(REVISION_KEY, 0))
                self.client.delete_collection(name)
                meta = {"hnsw:space": "cosine", REVISION_KEY: revision + 1, WRITE_KEY: uuid.uuid4().hex[:16]}
                self.client.create_collection(name, metadata=meta, embedding_function=None)
                if self._embedded is not None:
                    self._embedded.known[name] = _stamp(meta)
        return removed


def _stamp(meta: dict[str, Any] | None) -> tuple[int, str]:
    """(counter, token) of a collection's metadata: what tells this process another one wrote."""
    meta = meta or {}
    return int(meta.get(REVISION_KEY, 0)), str(meta.get(WRITE_KEY, ""))


def _items(res: dict[str, Any]) -> list[StoredItem]:
    """Turn a Chroma get() answer into StoredItems."""
    ids = res.get("ids") or []
    docs = res.get("documents")
    metas = res.get("metadatas")
    embs = res.get("embeddings")
    return [
        StoredItem(
            id=i,
            document=docs[k] if docs is not None else None,
            metadata=dict(metas[k] or {}) if metas is not None else {},
            embedding=embs[k] if embs is not None else None,
        )
        for k, i in enumerate(ids)
    ]
