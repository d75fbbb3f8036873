"""Markdown documents: front matter and the labels (dsl, backend, hardware, topic) of a file.

Front matter is an optional block at the very top of a file::

    ---
    dsl: triton
    backend: cuda
    topic: reductions
    ---

Only a small ``key: value`` subset is understood (values may be quoted; ``[a, b]`` gives a list;
``#`` starts a comment line), which is all curated docs need and avoids a YAML dependency. An
unknown key, a duplicate key, a line that is not ``key: value`` or a missing closing ``---`` makes
the file a rejection: a typo such as ``dls: triton`` would otherwise silently lose the label.

Labels missing from the front matter come from the path: a folder named after a DSL sets ``dsl``
(and, unless a backend folder or front matter says otherwise, that DSL's primary backend); a
``hardware`` folder marks a hardware document whose ``hardware`` name defaults to the file stem;
``topic`` defaults to the file stem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from akg_rag.dsl import BACKENDS, DSLS, TARGETS

from ingest.textfile import Rejected

FRONT_MATTER_KEYS: tuple[str, ...] = ("title", "dsl", "backend", "hardware", "topic", "arch", "tags")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$")


@dataclass
class MarkdownDoc:
    """A markdown file split into its front matter and its body."""

    front: dict[str, str | list[str]] = field(default_factory=dict)
    body: str = ""


@dataclass
class DocLabels:
    """What a document is about, stored as chunk metadata and used by retrieval filters."""

    title: str
    dsl: str | None = None
    backend: str | None = None
    hardware: str | None = None
    topic: str | None = None


def _value(raw: str) -> str | list[str]:
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]"):
        return [_value(part) for part in raw[1:-1].split(",") if part.strip()]  # type: ignore[misc]
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    return raw


def split_front_matter(text: str, path: object) -> MarkdownDoc:
    """Separate the front matter from the body; raise Rejected when it is malformed."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return MarkdownDoc(body=text)
    front: dict[str, str | list[str]] = {}
    for number, line in enumerate(lines[1:], start=2):
        stripped = line.strip()
        if stripped in ("---", "..."):
            return MarkdownDoc(front=front, body="\n".join(lines[number:]))
        if not stripped or stripped.startswith("#"):
            continue
        match = _KEY_LINE.match(stripped)
        if not match:
            raise Rejected(path, f"malformed front matter at line {number}: expected 'key: value'")
        key, raw = match.group(1).lower(), match.group(2)
        if key not in FRONT_MATTER_KEYS:
            raise Rejected(
                path, f"unknown front matter key {key!r} at line {number}; allowed: {', '.join(FRONT_MATTER_KEYS)}"
            )
        if key in front:
            raise Rejected(path, f"duplicate front matter key {key!r} at line {number}")
        value = _value(raw)
        if value in ("", []):
            raise Rejected(path, f"empty value for front matter key {key!r} at line {number}")
        if isinstance(value, list) and key != "tags":
            raise Rejected(path, f"front matter key {key!r} takes one value, not a list (line {number})")
        front[key] = value
    raise Rejected(path, "malformed front matter: no closing '---' line")


def _default_backend(dsl: str) -> str:
    return next(b for d, b in TARGETS if d == dsl)


def doc_labels(doc: MarkdownDoc, rel_path: str, path: object) -> DocLabels:
    """Labels of a document from its front matter, else from its root-relative path."""
    pure = PurePosixPath(rel_path)
    folders = [part.lower() for part in pure.parts[:-1]]
    front = {k: v for k, v in doc.front.items() if isinstance(v, str)}
    dsl = front.get("dsl") or next((f for f in folders if f in DSLS), None)
    backend = front.get("backend") or next((f for f in folders if f in BACKENDS), None)
    if dsl is not None and dsl not in DSLS:
        raise Rejected(path, f"unknown dsl {dsl!r}; allowed: {', '.join(DSLS)}")
    if backend is not None and backend not in BACKENDS:
        raise Rejected(path, f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if dsl and not backend:
        backend = _default_backend(dsl)
    if dsl and backend and (dsl, backend) not in TARGETS:
        allowed = ", ".join(f"{d}/{b}" for d, b in TARGETS)
        raise Rejected(path, f"unknown target {dsl}/{backend}; allowed: {allowed}")
    hardware = front.get("hardware")
    if hardware is None and "hardware" in folders:
        hardware = pure.stem
    title = front.get("title") or pure.stem.replace("_", " ").replace("-", " ")
    return DocLabels(title=title, dsl=dsl, backend=backend, hardware=hardware, topic=front.get("topic") or pure.stem)
