"""Buffered, crash-safe writing of rows: embed what is new, upsert, then delete what went stale.

Rows are buffered across files so the embedder sees full batches. For each flushed batch, a row
whose document text is already stored -- under its own id or under a row it replaces -- keeps
that embedding, so editing one paragraph re-embeds one chunk and editing a kernel's code (same
computation text) re-embeds nothing. New rows are upserted
*before* the stale rows of the same sources are deleted: a crash between the two leaves extra rows
that the next run recognises (mixed file hashes) and cleans up, never a hole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from akg_rag.embedding import Embedder
from akg_rag.store import KnowledgeStore

from ingest.report import IngestReport

# Rows buffered before a flush: a few embedder batches (64 texts each) per write.
FLUSH_ROWS = 256


@dataclass
class Row:
    """One row to write: id, embedded document and flat metadata."""

    id: str
    document: str
    metadata: dict[str, Any]


@dataclass
class _Pending:
    rows: list[Row] = field(default_factory=list)
    stale: list[set[str]] = field(default_factory=list)   # per added source: ids stored before


class Writer:
    """Collects rows per collection and writes them in batches (or only counts them in a dry run)."""

    def __init__(self, store: KnowledgeStore, embedder: Embedder, report: IngestReport, dry_run: bool = False):
        self.store = store
        self.embedder = embedder
        self.report = report
        self.dry_run = dry_run
        self.pending: dict[str, _Pending] = {}
        # Ids written in this run, per collection: never deleted later in the same run, even when
        # another source used to own them (a kernel folder renamed, same code).
        self.written: dict[str, set[str]] = {"docs": set(), "kernels": set()}

    def add(self, collection: str, rows: list[Row], old_ids: set[str]) -> None:
        """Queue the rows of one source, replacing ``old_ids`` (its previously stored rows)."""
        pending = self.pending.setdefault(collection, _Pending())
        pending.rows.extend(rows)
        pending.stale.append(set(old_ids))
        self.written[collection].update(row.id for row in rows)
        if len(pending.rows) >= FLUSH_ROWS:
            self._flush(collection)

    def flush(self) -> None:
        """Write everything still buffered."""
        for collection in list(self.pending):
            self._flush(collection)

    def delete(self, collection: str, ids: set[str]) -> None:
        """Delete rows of a removed source (ids written in this run are kept)."""
        doomed = sorted(ids - self.written[collection])
        if not doomed:
            return
        if self.dry_run:
            self.report.rows_deleted += len(doomed)
        else:
            self.report.rows_deleted += self.store.delete(collection, ids=doomed)

    def _flush(self, collection: str) -> None:
        pending = self.pending.pop(collection, None)
        if pending is None or not pending.rows:
            return
        rows = pending.rows
        stale = set().union(*pending.stale) - self.written[collection]
        # Stored vectors by document text: rows with the same id, and the rows being replaced
        # (a kernel whose code changed keeps its computation text; chunks shift when text is
        # inserted above them).
        lookup = sorted({r.id for r in rows} | stale)
        known = {
            item.document: item.embedding
            for item in self.store.get_many(collection, ids=lookup, include=("documents", "embeddings"))
        }
        reuse = [r.document in known for r in rows]
        fresh_texts = [r.document for r, keep in zip(rows, reuse) if not keep]
        self.report.embedded += len(fresh_texts)
        self.report.rows_written += len(rows)
        if self.dry_run:
            self.report.rows_deleted += len(stale)
            return
        import numpy as np

        fresh = iter(self.embedder.embed(fresh_texts)) if fresh_texts else iter(())
        vectors = [known[r.document] if keep else next(fresh) for r, keep in zip(rows, reuse)]
        self.store.upsert(
            collection,
            [r.id for r in rows],
            np.asarray(np.stack(vectors), dtype=np.float32),
            [r.document for r in rows],
            [r.metadata for r in rows],
        )
        if stale:
            self.report.rows_deleted += self.store.delete(collection, ids=sorted(stale))
