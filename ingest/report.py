"""The outcome of an ingest pass: what was added, updated, kept, removed, rejected and skipped."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ingest.textfile import Rejection


@dataclass
class IngestReport:
    """Counts are per source file (a markdown file or a kernel candidate); rows are chunks/records."""

    added: list[str] = field(default_factory=list)       # sources new to the store
    updated: list[str] = field(default_factory=list)     # sources whose files changed
    unchanged: list[str] = field(default_factory=list)   # sources already current: no embedding
    removed: list[str] = field(default_factory=list)     # sources gone from the ingested tree
    rejected: list[Rejection] = field(default_factory=list)
    skipped: list[Rejection] = field(default_factory=list)  # files that are neither docs nor kernels
    rows_written: int = 0      # chunks/records upserted
    rows_deleted: int = 0      # stale or removed chunks/records deleted
    embedded: int = 0          # texts embedded (reused embeddings are not counted)
    reset: int = 0             # rows deleted by --reset
    dry_run: bool = False

    @property
    def exit_code(self) -> int:
        """0 when nothing was rejected, 1 otherwise (everything else was still ingested)."""
        return 1 if self.rejected else 0

    def to_dict(self) -> dict:
        """JSON-ready form, with the rejections and skips as ``{path, reason}`` objects."""
        out = asdict(self)
        out["exit_code"] = self.exit_code
        return out

    def summary(self) -> str:
        """A few human-readable lines: the counts, then one line per rejection."""
        verb = "would be " if self.dry_run else ""
        lines = [
            f"{'dry run: ' if self.dry_run else ''}{len(self.added)} added, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.removed)} removed, {len(self.rejected)} rejected, "
            f"{len(self.skipped)} skipped",
            f"rows {verb}written: {self.rows_written}, {verb}deleted: {self.rows_deleted}, "
            f"texts {verb}embedded: {self.embedded}" + (f", reset removed {self.reset}" if self.reset else ""),
        ]
        lines += [str(r) for r in self.rejected]  # one "path: reason" line each
        return "\n".join(lines)
