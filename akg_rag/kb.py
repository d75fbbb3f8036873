"""Inspecting and editing the knowledge base by hand: list, show, remove, stats.

These are the library functions behind ``akg-rag kb``. They read metadata only (never embeddings)
and load no model. Removing an ingested row is undone by the next ``akg-ingest`` of its tree, which
sees the row missing and writes it back; delete or fix the file to make a removal stick.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from akg_rag.store import COLLECTIONS, KnowledgeStore, StoredItem


@dataclass
class ItemSummary:
    """One row as listed: what it is, for which target, and where it came from."""

    collection: str
    id: str
    dsl: str | None
    backend: str | None
    label: str          # op_name for a kernel; heading path (or hardware) for a doc chunk
    source: str | None
    origin: str | None  # kernels: seed or run


@dataclass
class RemoveResult:
    """Ids removed and ids that were in neither collection."""

    removed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def where_filter(dsl: str | None = None, backend: str | None = None) -> dict[str, Any] | None:
    """A Chroma ``where`` clause for an optional dsl and backend."""
    clauses = [{key: value} for key, value in (("dsl", dsl), ("backend", backend)) if value]
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def collections_of(collection: str | None) -> tuple[str, ...]:
    """Both collections, or just the one asked for."""
    return COLLECTIONS if collection is None else (collection,)


def list_items(
    store: KnowledgeStore, collection: str | None = None, dsl: str | None = None, backend: str | None = None
) -> list[ItemSummary]:
    """Every row matching the filters, sorted by collection then id."""
    out = []
    for name in collections_of(collection):
        for item in store.get_many(name, where=where_filter(dsl, backend), include=("metadatas",)):
            meta = item.metadata
            label = meta.get("op_name") if name == "kernels" else meta.get("heading") or meta.get("hardware")
            out.append(ItemSummary(
                collection=name, id=item.id, dsl=meta.get("dsl"), backend=meta.get("backend"),
                label=str(label or ""), source=meta.get("source"), origin=meta.get("origin"),
            ))
    return sorted(out, key=lambda s: (s.collection, s.id))


def _collection_for(item_id: str) -> tuple[str, ...]:
    if item_id.startswith("doc:"):
        return ("docs",)
    if item_id.startswith("kernel:"):
        return ("kernels",)
    return COLLECTIONS


def show_item(store: KnowledgeStore, item_id: str) -> tuple[str, StoredItem] | None:
    """``(collection, row)`` for an id, or None when no collection has it."""
    for name in _collection_for(item_id):
        item = store.get(name, item_id)
        if item is not None:
            return name, item
    return None


def remove_items(store: KnowledgeStore, ids: list[str]) -> RemoveResult:
    """Delete rows by id from whichever collection holds them."""
    result = RemoveResult()
    for item_id in ids:
        for name in _collection_for(item_id):
            if store.delete(name, ids=[item_id]):
                result.removed.append(item_id)
                break
        else:
            result.missing.append(item_id)
    return result


def stats(
    store: KnowledgeStore, collection: str | None = None, dsl: str | None = None, backend: str | None = None
) -> dict[str, dict[str, Any]]:
    """Per collection: total rows, revision, and counts by dsl, backend, target and more."""
    out: dict[str, dict[str, Any]] = {}
    for name in collections_of(collection):
        metas = [i.metadata for i in store.get_many(name, where=where_filter(dsl, backend), include=("metadatas",))]
        entry: dict[str, Any] = {
            "total": len(metas),
            "revision": store.revision(name),
            "by_dsl": _count(m.get("dsl") for m in metas),
            "by_backend": _count(m.get("backend") for m in metas),
            "by_target": _count(f"{m['dsl']}/{m['backend']}" if m.get("dsl") else None for m in metas),
        }
        if name == "kernels":
            entry["by_op_type"] = _count(m.get("op_type") for m in metas)
            entry["by_origin"] = _count(m.get("origin") for m in metas)
        else:
            entry["files"] = len({m.get("source") for m in metas})
            entry["by_hardware"] = _count(m.get("hardware") for m in metas if m.get("hardware"))
        out[name] = entry
    return out


def _count(values: Any) -> dict[str, int]:
    """Counts by value, most common first; a missing value counts as "-"."""
    counter = Counter("-" if v is None else str(v) for v in values)
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))
