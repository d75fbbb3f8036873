"""The knowledge store: two Chroma collections, ``docs`` and ``kernels``, behind one small class.

Where the store lives is decided once, in :func:`make_store`:

* a Chroma server when a URL is given (``--chroma-url``, else ``AKG_RAG_CHROMA_URL``);
* otherwise an embedded store under a data directory (``--data-dir``, else ``AKG_RAG_DATA_DIR``,
  else ``$XDG_DATA_HOME/akg-rag``, else ``~/.local/share/akg-rag``) -- never the working directory;
* an in-memory store for tests (``ephemeral=True``), isolated from every other one in the process.

After the client is made every mode takes the same code path. Collections use cosine space and no
embedding function: embeddings are always computed by :mod:`akg_rag.embedding` and passed in.

Every write bumps the collection's *revision*, an int kept in the collection metadata, so readers
can cache an index keyed on ``(count, revision)``.
"""

from __future__ import annotations

import os
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


def _make_client(data_dir: str | Path | None, url: str | None, ephemeral: bool) -> tuple[Any, str]:
    """Create the Chroma client for the chosen mode; return it with a human-readable location."""
    import chromadb

    if ephemeral:
        # Ephemeral clients in one process share a single in-memory system; a fresh database per
        # store keeps tests and callers from seeing each other's rows.
        database = f"akg_{uuid.uuid4().hex}"
        chromadb.AdminClient(_settings(is_persistent=False)).create_database(database)
        return chromadb.EphemeralClient(settings=_settings(), database=database), "memory"
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
        return client, url
    path = Path(data_dir).expanduser() if data_dir else default_data_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
        client = chromadb.PersistentClient(path=str(path), settings=_settings())
    except Exception as e:  # noqa: BLE001 - unreadable dir, foreign files, version mismatch
        raise StoreError(
            f"cannot open the knowledge store in {path} ({type(e).__name__}: {e}); "
            "choose another directory with --data-dir or AKG_RAG_DATA_DIR"
        ) from None
    return client, str(path)


def make_store(data_dir: str | Path | None = None, url: str | None = None, ephemeral: bool = False) -> "KnowledgeStore":
    """Open the knowledge store (see the module docstring for how the location is chosen)."""
    if data_dir and url:
        raise ConfigError("give either a data directory or a Chroma URL, not both")
    if not ephemeral and not data_dir:
        url = url or os.environ.get(URL_ENV) or None
    client, location = _make_client(data_dir, url, ephemeral)
    try:
        return KnowledgeStore(client, location)
    except AkgError:
        raise
    except Exception as e:  # noqa: BLE001 - the server vanished between heartbeat and setup
        raise StoreError(f"cannot open the collections at {location} ({type(e).__name__}: {e})") from None


class KnowledgeStore:
    """The ``docs`` and ``kernels`` collections of one Chroma client, with batched writes."""

    def __init__(self, client: Any, location: str):
        self.client = client
        self.location = location
        # Chroma rejects a write larger than this many rows (5461 for the embedded store).
        self.max_batch = int(client.get_max_batch_size())
        for name in COLLECTIONS:
            self._open(name)

    def _open(self, name: str) -> Any:
        # get_or_create keeps an existing collection's metadata (and so its revision) untouched.
        return self.client.get_or_create_collection(
            name, metadata={"hnsw:space": "cosine"}, embedding_function=None
        )

    @property
    def docs(self) -> Any:
        """The ``docs`` Chroma collection (document chunks)."""
        return self.collection("docs")

    @property
    def kernels(self) -> Any:
        """The ``kernels`` Chroma collection (verified kernels, embedded by computation logic)."""
        return self.collection("kernels")

    def collection(self, name: str) -> Any:
        """The Chroma collection called ``name`` ("docs" or "kernels"), freshly looked up."""
        if name not in COLLECTIONS:
            raise ConfigError(f"unknown collection {name!r}; allowed: {', '.join(COLLECTIONS)}")
        return self.client.get_collection(name, embedding_function=None)

    def revision(self, name: str) -> int:
        """The collection's write counter: changes on every upsert or delete through this class."""
        return int((self.collection(name).metadata or {}).get(REVISION_KEY, 0))

    def _bump(self, name: str) -> None:
        col = self.collection(name)
        meta = dict(col.metadata or {})
        meta[REVISION_KEY] = int(meta.get(REVISION_KEY, 0)) + 1
        # The distance space lives in the collection configuration and may not be re-sent.
        meta.pop("hnsw:space", None)
        col.modify(metadata=meta)

    def count(self, name: str) -> int:
        """Number of rows in the collection."""
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

    def reset(self) -> int:
        """Empty both collections; return how many rows they held.

        The collections are dropped and recreated -- deleting rows alone would keep the vector
        width fixed by the first insert -- and each new one starts one revision past the old, so
        a reader's cache keyed on (count, revision) can never mistake the new contents for the old.
        """
        removed = 0
        for name in COLLECTIONS:
            removed += self.count(name)
            revision = self.revision(name)
            self.client.delete_collection(name)
            self.client.create_collection(
                name, metadata={"hnsw:space": "cosine", REVISION_KEY: revision + 1}, embedding_function=None
            )
        return removed


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
