"""One ingest pass: discover inputs, skip what is current, write what changed, remove what is gone.

Order matters for crash safety: changed files are written (new rows first, then their stale rows
deleted) before files that disappeared are removed, so a run killed at any point leaves a store
that the next run repairs. See :mod:`ingest.manifest` for how "current" is decided.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from akg_rag.embedding import Embedder
from akg_rag.records import DocChunk, short_hash
from akg_rag.store import KnowledgeStore

from ingest.chunk import CHUNKER_VERSION, TARGET_TOKENS, chunk_markdown
from ingest.discover import DocFile, discover
from ingest.kernels import TASK_FILE, Analyze, KernelFolder, analyse, build_record, check, default_analyze, prepare
from ingest.manifest import Manifest, load_manifest
from ingest.markdown import doc_labels, split_front_matter
from ingest.report import IngestReport
from ingest.textfile import Rejected, Rejection, read_text
from ingest.writer import Row, Writer


class _Pass:
    """State of one ingest pass (manifests read so far, sources seen, the writer)."""

    def __init__(self, store: KnowledgeStore, embedder: Embedder, report: IngestReport, dry_run: bool,
                 analyze: Analyze, forget_stored: bool):
        self.store = store
        self.embedder = embedder
        self.report = report
        self.analyze = analyze
        self.forget_stored = forget_stored   # a dry run of --reset: pretend the store is empty
        self.writer = Writer(store, embedder, report, dry_run)
        self.manifests: dict[tuple[str, str], Manifest] = {}
        self.seen: set[tuple[str, str]] = set()   # (root, source) of every input met, even rejected

    def manifest(self, collection: str, root: str) -> Manifest:
        key = (collection, root)
        if key not in self.manifests:
            self.manifests[key] = (
                Manifest(collection, root) if self.forget_stored else load_manifest(self.store, collection, root)
            )
        return self.manifests[key]

    def reject(self, err: Rejected) -> None:
        self.report.rejected.append(Rejection(err.path, err.reason))

    def _queue(self, collection: str, root: str, source: str, rows: list[Row]) -> None:
        manifest = self.manifest(collection, root)
        (self.report.updated if manifest.state(source) else self.report.added).append(source)
        self.writer.add(collection, rows, manifest.ids(source))

    def doc(self, doc: DocFile) -> None:
        """Ingest one markdown file unless it is current."""
        self.seen.add((doc.root, doc.source))
        try:
            text = read_text(doc.path)
            file_hash = short_hash(f"{CHUNKER_VERSION}\0{TARGET_TOKENS}\0{doc.source}\0{text}")
            state = self.manifest("docs", doc.root).state(doc.source)
            if state is not None and state.is_current(file_hash):
                self.report.unchanged.append(doc.source)
                return
            parsed = split_front_matter(text, doc.path)
            labels = doc_labels(parsed, doc.source, doc.path)
            pieces = chunk_markdown(parsed.body, labels.title, self.embedder.count_tokens, self.embedder.max_tokens)
        except Rejected as e:
            self.reject(e)
            return
        if not pieces:
            self.reject(Rejected(doc.path, "no text to index (only front matter or headings)"))
            return
        chunks = [
            DocChunk(source=doc.source, index=i, heading=heading, text=body, dsl=labels.dsl,
                     backend=labels.backend, hardware=labels.hardware, topic=labels.topic, root=doc.root,
                     file_hash=file_hash, n_chunks=len(pieces))
            for i, (heading, body) in enumerate(pieces)
        ]
        self._queue("docs", doc.root, doc.source, [Row(c.id, c.document, c.metadata()) for c in chunks])

    def folder(self, root: str, folder: KernelFolder) -> None:
        """Ingest the candidates of one kernel folder that are not current."""
        pairs, others = folder.candidates()
        for other in others:
            self.report.skipped.append(Rejection(str(other), "not a task, candidate or sidecar of a known target"))
        for pair in pairs:
            self.seen.add((root, f"{folder.rel}/{pair.stem}.py"))
        try:
            task_source = read_text(folder.path / TASK_FILE)
        except Rejected as e:
            self.reject(e)
            return
        if not pairs:
            self.reject(Rejected(folder.path, "kernel folder without candidates (expected {dsl}_{backend}.py + .json)"))
            return
        analysis: Any = None
        for pair in pairs:
            try:
                prepared = prepare(folder, pair, task_source)
                state = self.manifest("kernels", root).state(prepared.source)
                if state is not None and state.is_current(prepared.file_hash):
                    self.report.unchanged.append(prepared.source)
                    continue
                sidecar = check(prepared)
            except Rejected as e:
                self.reject(e)
                continue
            if analysis is None:
                try:
                    analysis = analyse(folder, task_source, self.analyze)
                except Rejected as e:
                    self.reject(e)
                    return  # every candidate of the folder depends on its task
            record = build_record(prepared, sidecar, analysis, root)
            self._queue("kernels", root, prepared.source, [Row(record.id, record.document, record.metadata)])


def ingest(
    paths: list[str | Path],
    store: KnowledgeStore,
    embedder: Embedder,
    *,
    dry_run: bool = False,
    reset: bool = False,
    progress: bool = False,
    analyze: Analyze | None = None,
) -> IngestReport:
    """Ingest markdown files and kernel folders under ``paths`` into ``store``.

    ``dry_run`` reads the store and inputs but writes nothing; ``reset`` empties both collections
    first. ``analyze`` replaces task analysis (default: :func:`akg_rag.analysis.analyze_task`).
    Raises ConfigError for a path that does not exist; bad inputs are rejections in the report.
    """
    from tqdm import tqdm

    discovery = discover(paths)
    report = IngestReport(dry_run=dry_run, skipped=list(discovery.skipped), rejected=list(discovery.problems))
    if reset:
        if dry_run:
            report.reset = store.count("docs") + store.count("kernels")
        else:
            report.reset = store.reset()
    run = _Pass(store, embedder, report, dry_run, analyze or default_analyze, forget_stored=reset and dry_run)
    items: list[Any] = [*discovery.docs, *discovery.folders]
    # The bar counts inputs (a kernel folder holds one kernel per candidate file), the summary
    # counts the documents and kernels they became: say which is which.
    bar = tqdm(items, desc=f"ingest {len(discovery.docs)} doc files + {len(discovery.folders)} kernel folders",
               unit="input", file=sys.stderr, disable=not progress, leave=False)
    for item in bar:
        if isinstance(item, DocFile):
            run.doc(item)
        else:
            run.folder(*item)
    run.writer.flush()
    _remove_missing(run, discovery)
    return report


def _remove_missing(run: _Pass, discovery: Any) -> None:
    """Delete rows of sources inside an argument's scope whose files are no longer there."""
    for scope in discovery.scopes:
        for collection in ("docs", "kernels"):
            manifest = run.manifest(collection, scope.root)
            for source, state in sorted(manifest.sources.items()):
                if (scope.root, source) in run.seen or not scope.covers(source):
                    continue
                if any(p.root == scope.root and p.covers(source) for p in discovery.protected):
                    continue
                run.seen.add((scope.root, source))   # two scopes over one root remove it once
                run.writer.delete(collection, state.ids)
                run.report.removed.append(source)
