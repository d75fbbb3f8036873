"""Input checks the commands run first: before heavy imports, retrieval or any child process.

Each one costs milliseconds and turns a mistake into one plain message within a second or two,
instead of after tens of seconds of model loading, retrieval and design. Only the standard library
is imported here.
"""

from __future__ import annotations

import ast
import glob
import os
import sys
from pathlib import Path

from akg_rag import pysource
from akg_rag.errors import ConfigError, TaskError

# Top-level names a KernelBench-format task file must define.
TASK_NAMES = ("Model", "get_inputs", "get_init_inputs")


def check_task_file(path: str | Path) -> None:
    """Raise ``TaskError`` unless ``path`` is a readable Python file defining the task's names.

    Parses the file (no import): a missing file, a syntax error with its line and column, or a
    missing ``Model`` / ``get_inputs`` / ``get_init_inputs`` is reported here.
    """
    p = Path(path)
    if not p.exists():
        raise TaskError(p, "no such file")
    if not p.is_file():
        raise TaskError(p, "not a file (give the task's .py file)")
    try:
        source = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TaskError(p, f"cannot be read ({type(e).__name__}: {e})") from None
    try:
        tree = pysource.parse(source, filename=str(p))
    except SyntaxError as e:
        raise TaskError(p, f"syntax error at line {e.lineno}, column {e.offset}: {e.msg}") from None
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
    missing = [n for n in TASK_NAMES if n not in defined]
    if missing:
        raise TaskError(p, f"not a KernelBench-format task: no top-level {', '.join(missing)} "
                           "(a task defines class Model, get_inputs() and get_init_inputs())")


def gpu_visible() -> bool | None:
    """Whether an NVIDIA GPU can be visible to this process, without importing torch.

    False when ``CUDA_VISIBLE_DEVICES`` hides every device or, on Linux, when no NVIDIA device
    node or driver exists; None when this cannot be told cheaply (other systems: ask torch later).
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1", "none", "NoDevFiles"):
        return False
    if sys.platform.startswith("linux"):
        return bool(glob.glob("/dev/nvidia[0-9]*") or os.path.isdir("/proc/driver/nvidia/gpus"))
    return None


def require_gpu(backend: str, what: str, executor: str | None = None) -> None:
    """Raise ``ConfigError`` when ``backend`` needs a local GPU and none can be visible.

    Skipped for a remote ``executor`` (the GPU is where the jobs run, not here).
    """
    if backend != "cuda" or (executor not in (None, "local")):
        return
    if gpu_visible() is False:
        raise ConfigError(f"{what} for backend 'cuda' needs a CUDA GPU and this machine shows none "
                          "(no /dev/nvidia* device, or CUDA_VISIBLE_DEVICES hides them); run it on a "
                          "GPU machine, or use --backend cpu (--dsl cpp, or --dsl triton for the "
                          "interpreter: correctness only)")


def require_text(text: str | None, what: str = "query") -> None:
    """Raise ``ConfigError`` for a blank text (spaces only): it would match everything equally."""
    if text is not None and not text.strip():
        raise ConfigError(f"the {what} is blank: describe the computation, e.g. "
                          "\"row-wise softmax over a 2-D float32 tensor\", or use --task FILE")


def store_origin(data_dir: str | None, chroma_url: str | None) -> str:
    """How the store location was chosen: by a flag, by an environment variable, or by default."""
    if chroma_url:
        return "--chroma-url"
    if os.environ.get("AKG_RAG_CHROMA_URL"):
        return "$AKG_RAG_CHROMA_URL"
    if data_dir:
        return "--data-dir"
    if os.environ.get("AKG_RAG_DATA_DIR"):
        return "$AKG_RAG_DATA_DIR"
    return "the default ($XDG_DATA_HOME/akg-rag, else ~/.local/share/akg-rag)"


def other_stores(used: str) -> list[str]:
    """Embedded stores elsewhere that are not empty: ``.akg/data`` in this directory or a parent (where
    older Makefiles put the demo's), and the default location when another was used."""
    found = []
    here = Path.cwd().resolve()
    candidates = [d / ".akg" / "data" for d in (here, *here.parents)]
    xdg = os.environ.get("XDG_DATA_HOME")
    candidates.append((Path(xdg) if xdg else Path.home() / ".local" / "share") / "akg-rag")
    for c in candidates:
        try:
            if (c / "chroma.sqlite3").is_file() and c.resolve() != Path(used).resolve() and _rows(c) != 0:
                found.append(str(c))
        except OSError:
            continue
    return list(dict.fromkeys(found))


def _rows(store_dir: Path) -> int | None:
    """Embedded rows of a Chroma store, read-only from its SQLite file; None if it cannot be read."""
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{store_dir / 'chroma.sqlite3'}?mode=ro", uri=True, timeout=1.0)
        try:
            return int(con.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return None


def empty_store_message(location: str, data_dir: str | None, chroma_url: str | None) -> str:
    """The message for an empty knowledge base: where it looked, why there, and other stores seen."""
    lines = [f"akg-rag: the knowledge base is empty.",
             f"  looked at: {location} (chosen by {store_origin(data_dir, chroma_url)})"]
    others = other_stores(location) if not (chroma_url or os.environ.get("AKG_RAG_CHROMA_URL")) else []
    for o in others:
        lines.append(f"  another store, not empty, is at {o}: use it with --data-dir {o}")
    lines.append("  fill this one with `akg-ingest knowledge/` (same --data-dir/--chroma-url as this command)")
    return "\n".join(lines)
