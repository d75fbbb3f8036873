"""Reading input files for ingestion, turning every way a file can be unusable into a rejection."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# Curated docs and kernels are a few KB each; anything past this is not knowledge we want embedded.
MAX_BYTES = 2 * 1024 * 1024


class Rejected(Exception):
    """An input item that cannot be ingested; ``reason`` is one line for the summary."""

    def __init__(self, path: object, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


@dataclass(frozen=True)
class Rejection:
    """A rejected item as reported: the path the user knows and one line of why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def read_text(path: Path) -> str:
    """Return the UTF-8 text of ``path``; raise Rejected if it is missing, huge, binary or empty."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise Rejected(path, f"unreadable ({e.strerror or e})") from None
    if size > MAX_BYTES:
        raise Rejected(path, f"too large ({size / 2**20:.1f} MiB; the limit is {MAX_BYTES // 2**20} MiB)")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise Rejected(path, f"unreadable ({e.strerror or e})") from None
    if b"\x00" in data:
        raise Rejected(path, "binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Rejected(path, f"not UTF-8 (invalid byte 0x{data[e.start]:02x} at offset {e.start})") from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.strip():
        raise Rejected(path, "empty file")
    return text
