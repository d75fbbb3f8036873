"""The tuning store: the best measured tunables of a kernel per (op signature, shape bucket, device).

One JSON file (``{"version": 1, "entries": {key: entry}}``), by default
``$XDG_DATA_HOME/akg-rag/tuning.json``; ``AKG_RAG_TUNING_STORE`` names another file and
``AKG_RAG_DATA_DIR`` another data directory (the knowledge base's rule). It is the layer-1 source
of truth: it needs nothing but the standard library, so a bare GPU box tunes into it and the next
lowering of a task of the same kind on that box starts from it.

Several processes may tune at once: every write takes an exclusive ``fcntl`` lock on
``<file>.lock``, re-reads the file, changes one entry and replaces the file atomically
(``os.replace`` of a fully written temporary), so no writer loses another's entry and a reader
never sees half a file. Keys are :class:`~akg_rag.lower.tuning_key.TuningKey` texts.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from akg_rag.errors import ConfigError
from akg_rag.lower.tuning_key import TuningKey

STORE_ENV = "AKG_RAG_TUNING_STORE"
VERSION = 1


@dataclass
class TuningEntry:
    """One tuned configuration and how it was measured."""

    tunables: dict[str, int]        # sketch parameter -> value: {"KBLOCK": 8, "NUM_WARPS": 4}
    ms: float | None                # the kernel's candidate time when it won (verifier median), ms
    date: str                       # ISO 8601, UTC
    kind: str = ""                  # region kind (pointwise, reduction, gemm, ...)
    dsl: str = ""
    backend: str = ""
    task: str = ""                  # the task it was tuned on
    speedup_eager: float | None = None
    key: dict[str, str] = field(default_factory=dict)   # signature, bucket, device (for reading)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TuningEntry":
        """Inverse of :meth:`to_dict`; unknown fields (a newer writer's) are ignored."""
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        known["tunables"] = {str(k): int(v) for k, v in (d.get("tunables") or {}).items()}
        return cls(**known)


def now() -> str:
    """The current time as the store writes it (UTC, seconds)."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def default_path() -> Path:
    """``$AKG_RAG_TUNING_STORE``, else ``<data dir>/tuning.json`` (``$AKG_RAG_DATA_DIR``, else
    ``$XDG_DATA_HOME/akg-rag``, else ``~/.local/share/akg-rag``)."""
    if os.environ.get(STORE_ENV):
        return Path(os.environ[STORE_ENV]).expanduser()
    if os.environ.get("AKG_RAG_DATA_DIR"):
        return Path(os.environ["AKG_RAG_DATA_DIR"]).expanduser() / "tuning.json"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "akg-rag" / "tuning.json"


class TuningStore:
    """The JSON file of tuned configurations (see the module docstring)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else default_path()

    def get(self, key: TuningKey) -> TuningEntry | None:
        """The entry filed under ``key``, or None. Raises ``ConfigError`` for an unreadable file."""
        if not self.path.exists():
            return None   # reading creates nothing (no directory, no lock file)
        with self._locked(exclusive=False):
            raw = self._read().get(key.text())
        return TuningEntry.from_dict(raw) if raw is not None else None

    def put(self, key: TuningKey, entry: TuningEntry) -> None:
        """File ``entry`` under ``key`` (replacing what was there: a tune starts from the stored
        configuration, so its winner was measured against it), keeping every other entry."""
        entry.key = {"signature": key.signature, "bucket": key.bucket, "device": key.device}
        with self._locked(exclusive=True):
            entries = self._read()
            entries[key.text()] = entry.to_dict()
            self._write(entries)

    def entries(self) -> dict[str, TuningEntry]:
        """Every entry, by key text."""
        if not self.path.exists():
            return {}
        with self._locked(exclusive=False):
            return {k: TuningEntry.from_dict(v) for k, v in self._read().items()}

    # --- file access (callers hold the lock) -----------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        """Hold ``<file>.lock`` (shared for reading, exclusive for writing) for the block."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise ConfigError(f"cannot open the tuning store lock {self.path}.lock ({e}); set "
                              f"{STORE_ENV} to a writable file") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"the tuning store {self.path} is not valid JSON ({e}); move it away "
                              "to start a new one") from None
        if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
            raise ConfigError(f"the tuning store {self.path} has no 'entries' table; move it away "
                              "to start a new one")
        return data["entries"]

    def _write(self, entries: dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".tuning-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": VERSION, "entries": entries}, f, indent=1, sort_keys=True)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
