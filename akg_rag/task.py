"""Loading KernelBench-format task files and candidate files as Python modules.

A task file defines ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``, and
optionally ``get_inputs_dyn_list()`` returning several input lists (dynamic shapes). A candidate file
defines ``ModelNew`` with ``Model``'s constructor signature.

Loading executes the file's top level -- only ever do that for untrusted candidates inside the
verifier's child process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from akg_rag.errors import TaskError


@dataclass
class Task:
    """A loaded task module and the callables it must provide."""

    path: Path
    module: types.ModuleType
    model_cls: type
    get_inputs: Callable[[], list[Any]]
    get_init_inputs: Callable[[], list[Any]]
    get_inputs_dyn_list: Callable[[], list[list[Any]]] | None

    def input_sets(self) -> list[list[Any]]:
        """Every input list the task defines: the dynamic list when present, else ``[get_inputs()]``."""
        if self.get_inputs_dyn_list is not None:
            sets = list(self.get_inputs_dyn_list())
            if not sets:
                raise TaskError(self.path, "get_inputs_dyn_list() returned no input lists")
            return [list(s) for s in sets]
        return [list(self.get_inputs())]


def read_source(path: str | Path) -> str:
    """Read a Python source file as UTF-8, raising ``TaskError`` with a one-line reason."""
    p = Path(path)
    if not p.is_file():
        raise TaskError(p, "no such file")
    data = p.read_bytes()
    if b"\x00" in data:
        raise TaskError(p, "binary file, expected Python source")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TaskError(p, f"not UTF-8 ({e.reason} at byte {e.start})") from None


def source_hash(source: str) -> str:
    """Stable content hash (sha256 hex, first 16 chars) of a source text."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def load_module(path: str | Path, source: str | None = None, prefix: str = "akg_task") -> types.ModuleType:
    """Execute a Python file as a fresh module with a unique name; raise ``TaskError`` on failure."""
    p = Path(path).resolve()
    src = read_source(p) if source is None else source
    name = f"{prefix}_{source_hash(src)}_{abs(hash(str(p))) % 10**8}"
    spec = importlib.util.spec_from_loader(name, loader=None, origin=str(p))
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(p)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        code = compile(src, str(p), "exec")
        exec(code, module.__dict__)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        raise TaskError(p, f"syntax error at line {e.lineno}: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 - any import-time failure of user code is a TaskError
        sys.modules.pop(name, None)
        raise TaskError(p, f"failed to import: {type(e).__name__}: {e}") from None
    return module


def load_task(path: str | Path, source: str | None = None) -> Task:
    """Load a KernelBench-format task file and check that it defines what a task needs."""
    p = Path(path)
    module = load_module(p, source)
    model_cls = getattr(module, "Model", None)
    if not isinstance(model_cls, type):
        raise TaskError(p, "defines no class Model")
    for fn in ("get_inputs", "get_init_inputs"):
        if not callable(getattr(module, fn, None)):
            raise TaskError(p, f"defines no function {fn}()")
    dyn = getattr(module, "get_inputs_dyn_list", None)
    return Task(
        path=p,
        module=module,
        model_cls=model_cls,
        get_inputs=module.get_inputs,
        get_init_inputs=module.get_init_inputs,
        get_inputs_dyn_list=dyn if callable(dyn) else None,
    )
