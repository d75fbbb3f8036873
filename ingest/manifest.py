"""What the store already holds for an ingested tree, read back from the rows themselves.

There is no manifest file: every ingested row carries ``root`` (the tree's label), ``source`` (its
root-qualified path) and ``file_hash`` (hash of the input files it came from); doc chunks also carry
``n_chunks``. Because the manifest lives in the store, ingest is incremental on any machine that
points at the same store, and it cannot drift from what is really stored.

A source is *current* when all its rows have the file's present hash and none is missing. After a
crash midway through writing a file, its rows carry mixed hashes or are incomplete, so the next run
sees the file as changed and rewrites it: writing new rows first and deleting stale ones after is
what makes any interrupted run repairable by simply running again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from akg_rag.store import KnowledgeStore


@dataclass
class SourceState:
    """The stored rows of one source file."""

    ids: set[str] = field(default_factory=set)
    file_hashes: set[str] = field(default_factory=set)
    n_chunks: set[int] = field(default_factory=set)

    def is_current(self, file_hash: str) -> bool:
        """True when every row has ``file_hash`` and the row count matches what was written."""
        if self.file_hashes != {file_hash}:
            return False
        expected = next(iter(self.n_chunks)) if len(self.n_chunks) == 1 else (1 if not self.n_chunks else -1)
        return len(self.ids) == expected


@dataclass
class Manifest:
    """Per source, the rows one collection holds for one root label."""

    collection: str
    root: str
    sources: dict[str, SourceState] = field(default_factory=dict)

    def state(self, source: str) -> SourceState | None:
        """Stored rows of ``source``, or None if it was never ingested under this root."""
        return self.sources.get(source)

    def ids(self, source: str) -> set[str]:
        """Ids stored for ``source`` (empty when none)."""
        state = self.sources.get(source)
        return set(state.ids) if state else set()


def load_manifest(store: KnowledgeStore, collection: str, root: str) -> Manifest:
    """Read the manifest of ``root`` from ``collection`` (metadata only, no documents or vectors)."""
    manifest = Manifest(collection, root)
    for item in store.get_many(collection, where={"root": root}, include=("metadatas",)):
        meta = item.metadata
        source = str(meta.get("source", ""))
        state = manifest.sources.setdefault(source, SourceState())
        state.ids.add(item.id)
        state.file_hashes.add(str(meta.get("file_hash", "")))
        if "n_chunks" in meta:
            state.n_chunks.add(int(meta["n_chunks"]))
    return manifest
