"""What a tune leaves in its ``--out`` directory, written as it goes so a killed tune loses nothing.

| file | written | holds |
| --- | --- | --- |
| ``seed.py`` | at the start | the lowered candidate the search starts from |
| ``report.json`` | at the start | the lowering report (kernels, sketches, sizes, where tunables came from) |
| ``verdicts.jsonl`` | after every verification (appended, fsynced) | source key, tunables, fitness |
| ``best.py`` | whenever a correct candidate beats the best so far (atomic replace) | that candidate |
| ``tuning.json`` | after every generation and at the end (atomic replace) | the tuning log: target, knobs, per-generation lines, best, store writes, why it stopped |

A tune started again on the same directory reads ``seed.py`` and ``verdicts.jsonl`` back: with the
same search settings it replays the finished generations from the journal (no verification) and
goes on where it stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from akg_rag.search.fitness import Fitness


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` so a reader (or a kill) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class TuneLog:
    """The files of one tune directory (see the module docstring)."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.seed_path = self.out / "seed.py"
        self.verdicts_path = self.out / "verdicts.jsonl"
        self.best_path = self.out / "best.py"
        self.log_path = self.out / "tuning.json"
        self.report_path = self.out / "report.json"

    def previous(self) -> dict[str, Any] | None:
        """The log of an earlier tune in this directory, or None."""
        try:
            return json.loads(self.log_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None

    def clear(self) -> None:
        """Forget an earlier tune (``--fresh``)."""
        for p in (self.seed_path, self.verdicts_path, self.best_path, self.log_path):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()

    def write_seed(self, source: str) -> None:
        atomic_write(self.seed_path, source)

    def read_seed(self) -> str | None:
        try:
            return self.seed_path.read_text(encoding="utf-8")
        except OSError:
            return None

    def verdicts(self) -> dict[str, Fitness]:
        """Fitness by source key from the journal; a torn last line (a kill mid-write) is skipped."""
        out: dict[str, Fitness] = {}
        try:
            lines = self.verdicts_path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return out
        for line in lines:
            try:
                d = json.loads(line)
                out[d["key"]] = Fitness.from_dict(d["fitness"])
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
        return out

    def record(self, key: str, tunables: dict[str, int], fitness: Fitness, wall_s: float) -> None:
        """Append one verdict to the journal and push it to disk."""
        self.out.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"key": key, "tunables": tunables, "wall_s": round(wall_s, 3),
                           "fitness": fitness.to_dict()}, default=str)
        with open(self.verdicts_path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def write_best(self, source: str) -> None:
        atomic_write(self.best_path, source)

    def write_report(self, report: dict[str, Any]) -> None:
        atomic_write(self.report_path, json.dumps(report, indent=2, default=str) + "\n")

    def write_log(self, log: dict[str, Any]) -> None:
        atomic_write(self.log_path, json.dumps(log, indent=2, default=str) + "\n")
