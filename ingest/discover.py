"""Turning ``akg-ingest PATH...`` arguments into roots, markdown files and kernel folders.

Every stored row is labelled with the *root* it was ingested from and a root-qualified ``source``
path: ingesting ``knowledge/`` gives root ``knowledge`` and sources such as
``knowledge/docs/triton/reductions.md``. The root label is the directory's name, so the same tree
ingested from another checkout or machine maps onto the same rows.

Each argument also sets the *scope* in which rows whose files have disappeared are removed:

* a directory: everything stored under its root label;
* a kernel folder (a directory holding ``task.py``): that folder's rows only (root = its parent);
* a markdown file: that file's rows only (root = its parent directory).

Two different trees with the same directory name share a label; give them different names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from akg_rag.errors import ConfigError

from ingest.kernels import TASK_FILE, KernelFolder
from ingest.textfile import Rejection

DOC_SUFFIX = ".md"
_IGNORED_DIRS = frozenset({"__pycache__", "node_modules"})


@dataclass
class Scope:
    """Where removals may happen: rows of ``root`` whose source is ``prefix`` or lies under it."""

    root: str
    prefix: str | None = None   # None: the whole root; "a/b/": a folder; "a/b.md": one file

    def covers(self, source: str) -> bool:
        """True when ``source`` (of this root) lies inside the scope."""
        if self.prefix is None:
            return True
        return source.startswith(self.prefix) if self.prefix.endswith("/") else source == self.prefix


@dataclass
class DocFile:
    """A markdown file to ingest: where it is, its root label and root-qualified source."""

    path: Path
    root: str
    source: str


@dataclass
class Discovery:
    """Everything found under the arguments, in a stable order."""

    scopes: list[Scope] = field(default_factory=list)
    docs: list[DocFile] = field(default_factory=list)
    folders: list[tuple[str, KernelFolder]] = field(default_factory=list)   # (root, folder)
    skipped: list[Rejection] = field(default_factory=list)
    problems: list[Rejection] = field(default_factory=list)   # unreadable directories
    protected: list[Scope] = field(default_factory=list)      # not removed: could not be listed


def root_label(directory: Path) -> str:
    """The label of a root directory: its name (``root`` for the filesystem root)."""
    return directory.resolve().name or "root"


def _walk(discovery: Discovery, top: Path, label: str) -> None:
    """Collect markdown files and kernel folders under ``top``, a root directory labelled ``label``."""

    def on_error(err: OSError) -> None:
        where = Path(err.filename or top)
        discovery.problems.append(Rejection(str(where), f"unreadable directory ({err.strerror})"))
        try:
            rel = where.resolve().relative_to(top.resolve()).as_posix()
        except ValueError:
            rel = "."  # outside the root (a link): protect the whole root rather than guess
        discovery.protected.append(Scope(label, f"{label}/{rel}/" if rel != "." else None))

    for dirpath, dirnames, filenames in os.walk(top, onerror=on_error):
        here = Path(dirpath)
        rel_dir = here.relative_to(top).as_posix()
        qualified = label if rel_dir == "." else f"{label}/{rel_dir}"
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _IGNORED_DIRS)
        if TASK_FILE in filenames and here != top:
            discovery.folders.append((label, KernelFolder(here, qualified)))
            dirnames.clear()  # a kernel folder is one unit; nothing below it is read
            continue
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = here / name
            if name.endswith(DOC_SUFFIX):
                discovery.docs.append(DocFile(path, label, f"{qualified}/{name}"))
            elif not name.endswith(".pyc"):
                discovery.skipped.append(Rejection(str(path), "not a markdown file or part of a kernel folder"))


def discover(paths: list[str | Path]) -> Discovery:
    """Resolve the arguments; a path that does not exist is a usage error (ConfigError)."""
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise ConfigError(f"no such file or directory: {', '.join(missing)}")
    discovery = Discovery()
    for arg in paths:
        path = Path(arg)
        if path.is_dir() and (path / TASK_FILE).is_file():
            label = root_label(path.resolve().parent)
            rel = f"{label}/{path.resolve().name}"
            discovery.scopes.append(Scope(label, rel + "/"))
            discovery.folders.append((label, KernelFolder(path, rel)))
        elif path.is_dir():
            label = root_label(path)
            discovery.scopes.append(Scope(label))
            _walk(discovery, path, label)
        elif path.suffix == DOC_SUFFIX:
            label = root_label(path.resolve().parent)
            source = f"{label}/{path.name}"
            discovery.scopes.append(Scope(label, source))
            discovery.docs.append(DocFile(path, label, source))
        else:
            discovery.skipped.append(Rejection(str(path), "not a markdown file or a directory"))
    _dedupe(discovery)
    return discovery


def _dedupe(discovery: Discovery) -> None:
    """Keep the first sighting of each file or folder when arguments overlap (``a a/x.md``)."""
    seen: set[Path] = set()

    def first(path: Path) -> bool:
        key = path.resolve()
        if key in seen:
            return False
        seen.add(key)
        return True

    discovery.docs = [doc for doc in discovery.docs if first(doc.path)]
    discovery.folders = [(root, folder) for root, folder in discovery.folders if first(folder.path)]
