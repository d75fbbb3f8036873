"""Run-time guards, installed in the child process before the candidate is imported.

* Launch counters prove that a kernel of the declared DSL ran: Triton's ``JITFunction.run`` (and the
  interpreter's), and every function of a module built by ``cpp_extension.load_inline``/``load``.
* Patched entry points refuse threads, processes, signals, frame/garbage-collector introspection,
  opening files (``open``, ``io.open``, ``os.open``), ``os._exit`` and side CUDA streams when the *candidate's own code* calls them (library code such as
  ``load_inline`` running ``ninja``, or Triton running ``ptxas``, stays allowed). A refusal is recorded
  as a violation and raised as :class:`GuardError` inside the candidate.
* An integrity snapshot of torch, timers, builtins and the verifier's own modules is compared after
  the candidate ran: any replaced attribute is a violation.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import inspect
import os
import sys
import sysconfig
import threading
import time
import types
from typing import Any, Callable, Iterator

from akg_rag.verify.guards import violation

_getframe = sys._getframe  # the real one, captured before anything can replace it
_HERE = os.path.abspath(__file__)


class GuardError(RuntimeError):
    """Raised inside the candidate when it calls something the protocol forbids."""


def _trusted_roots() -> tuple[str, ...]:
    """Directories whose code may spawn, introspect or exit: stdlib, site-packages, akg_rag."""
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    import akg_rag

    roots.add(os.path.dirname(os.path.abspath(akg_rag.__file__)))
    for name in ("torch", "triton", "numpy"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            roots.add(os.path.dirname(os.path.dirname(os.path.abspath(mod.__file__))))
    return tuple(sorted(r.rstrip("/") + "/" for r in roots))


class Hooks:
    """Counters, violations and the patches that feed them (one instance per child)."""

    def __init__(self, dsl: str, backend: str) -> None:
        self.dsl = dsl
        self.backend = backend
        self.launches = 0                              # kernel launches of the declared DSL
        # called around each launch when set: observer(kind, name, launch, args, kwargs) -> result
        # (see akg_rag.verify.attribution)
        self.observer: Callable[..., Any] | None = None
        self.violations: list[dict[str, str]] = []
        self.builds: list[dict[str, Any]] = []         # {name, cached, seconds}
        self.build_error: str | None = None            # compiler output of a failed build
        self.notes: list[str] = []
        self._roots = _trusted_roots()
        self._std = tuple(sysconfig.get_paths()[k].rstrip("/") + "/" for k in ("stdlib", "platstdlib"))
        self._snapshot: dict[str, tuple[Any, dict[str, Any]]] = {}
        # (owner, attribute, original, counting wrapper) of every launch counter installed
        self._counters: list[tuple[Any, str, Any, Any]] = []

    # -- who is calling ----------------------------------------------------------------------
    def _untrusted(self, filename: str) -> bool:
        return not (filename.startswith(self._roots) or filename.startswith("<frozen "))

    def _is_stdlib(self, filename: str) -> bool:
        if filename.startswith("<frozen "):
            return True
        return filename.startswith(self._std) and "-packages/" not in filename

    def _caller(self, skip_stdlib: bool) -> str:
        """File of the first frame outside this module (and outside the stdlib when asked)."""
        f = _getframe(1)
        while f is not None:
            fn = f.f_code.co_filename
            if os.path.abspath(fn) != _HERE and not (skip_stdlib and self._is_stdlib(fn)):
                return fn
            f = f.f_back
        return "<unknown>"

    def _refuse(self, guard: str, what: str, skip_stdlib: bool) -> None:
        caller = self._caller(skip_stdlib)
        if self._untrusted(caller):
            self.violations.append(violation(guard, f"{what} (from {os.path.basename(caller)})"))
            raise GuardError(f"akg-rag verifier: {what} is not allowed in a candidate ({guard})")

    def _wrap(self, owner: Any, attr: str, guard: str, what: str, skip_stdlib: bool = True) -> None:
        orig = getattr(owner, attr, None)
        if orig is None:
            return
        hooks = self

        def guarded(*args: Any, **kwargs: Any) -> Any:
            hooks._refuse(guard, what, skip_stdlib)
            return orig(*args, **kwargs)

        guarded.__wrapped__ = orig  # type: ignore[attr-defined]
        setattr(owner, attr, guarded)

    # -- installation ------------------------------------------------------------------------
    def install(self) -> None:
        """Patch every entry point, then take the integrity snapshot (patches included)."""
        import subprocess
        import multiprocessing.process as mpp
        import _thread

        self._wrap(threading.Thread, "start", "spawn", "starting a thread")
        self._wrap(_thread, "start_new_thread", "spawn", "starting a thread")
        self._wrap(mpp.BaseProcess, "start", "spawn", "starting a process")
        self._wrap(subprocess.Popen, "__init__", "spawn", "running a subprocess")
        for name in ("fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "kill",
                     "killpg", "execv", "execve", "execvp", "execvpe", "spawnv", "spawnve"):
            self._wrap(os, name, "spawn", f"os.{name}")
        self._wrap(os, "_exit", "early_exit", "os._exit", skip_stdlib=False)
        for name in ("_current_frames", "settrace", "setprofile"):
            self._wrap(sys, name, "introspection", f"sys.{name}", skip_stdlib=False)
        for name in ("get_objects", "get_referrers", "get_referents"):
            self._wrap(gc, name, "introspection", f"gc.{name}", skip_stdlib=False)
        for name in ("stack", "trace", "getouterframes", "getinnerframes"):
            self._wrap(inspect, name, "introspection", f"inspect.{name}", skip_stdlib=False)
        import io

        for owner, name in ((builtins, "open"), (io, "open"), (os, "open")):
            self._wrap(owner, name, "file_access", f"{getattr(owner, '__name__', 'io')}.{name}")
        self._install_frame_getters()
        self._install_launch_counters()
        if self.backend == "cuda":
            self._install_stream_guards()
        self._take_snapshot()

    def _install_frame_getters(self) -> None:
        hooks = self

        def getframe(depth: int = 0) -> types.FrameType:
            hooks._refuse("introspection", "sys._getframe", skip_stdlib=False)
            return _getframe(depth + 1)

        def currentframe() -> types.FrameType:
            hooks._refuse("introspection", "inspect.currentframe", skip_stdlib=False)
            return _getframe(1)

        sys._getframe = getframe  # type: ignore[assignment]
        inspect.currentframe = currentframe  # type: ignore[assignment]

    def _install_launch_counters(self) -> None:
        hooks = self
        if self.dsl == "triton":
            from triton.runtime import jit as tjit

            classes = [tjit.JITFunction]
            try:
                from triton.runtime.interpreter import InterpretedFunction

                classes.append(InterpretedFunction)
            except ImportError:
                pass
            for cls in classes:
                orig_run = cls.run

                def run(self: Any, *args: Any, _orig: Callable = orig_run, **kwargs: Any) -> Any:
                    if kwargs.get("warmup"):
                        return _orig(self, *args, **kwargs)
                    hooks.launches += 1
                    if hooks.observer is not None:
                        name = getattr(getattr(self, "fn", None), "__name__", "triton kernel")
                        return hooks.observer("triton", name, lambda: _orig(self, *args, **kwargs), args, kwargs)
                    return _orig(self, *args, **kwargs)

                cls.run = run
                self._counters.append((cls, "run", orig_run, run))
        elif self.dsl in ("cpp", "cuda_c"):
            import torch.utils.cpp_extension as ce

            for name in ("load_inline", "load"):
                self._wrap_builder(ce, name)
        elif self.dsl == "tilelang":
            self._install_tilelang_counter()

    def _wrap_builder(self, ce: types.ModuleType, name: str) -> None:
        orig = getattr(ce, name)
        hooks = self

        def build(*args: Any, **kwargs: Any) -> Any:
            ext_name = kwargs.get("name", args[0] if args else "?")
            before = _so_files()
            t0 = time.perf_counter()
            try:
                module = orig(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - a failed build is the candidate's compile error
                hooks.build_error = str(e)
                raise
            seconds = time.perf_counter() - t0
            hooks.builds.append({"name": str(ext_name), "cached": _so_files() == before,
                                 "seconds": round(seconds, 3)})
            if isinstance(module, types.ModuleType):
                for attr in dir(module):
                    fn = getattr(module, attr)
                    if not attr.startswith("_") and callable(fn) and not isinstance(fn, type):
                        counted = hooks._counted(fn)
                        setattr(module, attr, counted)
                        hooks._counters.append((module, attr, fn, counted))
            return module

        setattr(ce, name, build)

    def _counted(self, fn: Callable) -> Callable:
        hooks = self

        def call(*args: Any, **kwargs: Any) -> Any:
            hooks.launches += 1
            if hooks.observer is not None:
                return hooks.observer("extension", call.__name__, lambda: fn(*args, **kwargs), args, kwargs)
            return fn(*args, **kwargs)

        call.__name__ = getattr(fn, "__name__", "extension_function")
        call.__doc__ = getattr(fn, "__doc__", None)
        return call

    def _install_tilelang_counter(self) -> None:
        try:
            from tilelang.jit.kernel import JITKernel  # type: ignore[import-not-found]
        except Exception:  # noqa: BLE001 - tilelang absent or laid out differently
            self.notes.append("tilelang launch counter not installed (no tilelang.jit.kernel.JITKernel)")
            return
        orig = JITKernel.__call__
        hooks = self

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            hooks.launches += 1
            return orig(self, *args, **kwargs)

        JITKernel.__call__ = call
        self._counters.append((JITKernel, "__call__", orig, call))

    @contextlib.contextmanager
    def counters_paused(self) -> Iterator[None]:
        """Put the original launch entry points back for the block (the timed loop), then re-install.

        Launches are counted during the correctness calls; inside timing a counter would only add
        its own cost to every measured call.
        """
        for owner, attr, orig, _ in self._counters:
            setattr(owner, attr, orig)
        try:
            yield
        finally:
            for owner, attr, _, wrapper in self._counters:
                setattr(owner, attr, wrapper)

    def _install_stream_guards(self) -> None:
        import torch

        self._wrap(torch.cuda, "stream", "side_stream", "torch.cuda.stream", skip_stdlib=False)
        self._wrap(torch.cuda, "set_stream", "side_stream", "torch.cuda.set_stream", skip_stdlib=False)
        orig_new = torch.cuda.Stream.__new__
        hooks = self

        def new(cls: type, *args: Any, **kwargs: Any) -> Any:
            hooks._refuse("side_stream", "creating a CUDA stream", skip_stdlib=False)
            return orig_new(cls, *args, **kwargs)

        torch.cuda.Stream.__new__ = new  # type: ignore[method-assign]

    # -- integrity ---------------------------------------------------------------------------
    def _take_snapshot(self) -> None:
        import torch

        owners: dict[str, Any] = {
            "time": time, "builtins": builtins, "os": os, "gc": gc, "inspect": inspect,
            "threading": threading, "torch": torch, "torch.Tensor": torch.Tensor,
            "torch.nn.functional": torch.nn.functional, "torch.nn.Module": torch.nn.Module,
            "torch.testing": torch.testing,
        }
        for name in ("json", "hmac", "hashlib", "math", "akg_rag.verify.compare",
                     "akg_rag.verify.timing", "akg_rag.verify.child", "akg_rag.verify.seal",
                     "akg_rag.verify.hooks", "torch.utils.cpp_extension"):
            if name in sys.modules:
                owners[name] = sys.modules[name]
        if torch.cuda.is_available():
            owners["torch.cuda"] = torch.cuda
            owners["torch.cuda.Event"] = torch.cuda.Event
        for label, owner in owners.items():
            keep = {k: v for k, v in vars(owner).items() if not k.startswith("_")}
            # watched dunders may be inherited (Tensor.__sub__ lives on TensorBase): read them through getattr
            keep.update({k: _lookup(owner, k) for k in _PRIVATE_WATCHED if _lookup(owner, k) is not _MISSING})
            self._snapshot[label] = (owner, keep)
        self._sys_watch = {k: getattr(sys, k) for k in ("_getframe", "settrace", "setprofile", "exit")}

    def check_integrity(self) -> list[dict[str, str]]:
        """Violations for every watched attribute replaced since :meth:`install`."""
        found = []
        for label, (owner, keep) in self._snapshot.items():
            changed = [k for k, v in keep.items() if _lookup(owner, k) is not v]
            for k in changed[:5]:
                full = f"{label}.{k}"
                timer = label in ("time", "torch.cuda", "torch.cuda.Event") and (
                    label != "torch.cuda" or k in ("synchronize", "Event", "current_stream", "Stream"))
                found.append(violation("patched_timer" if timer else "monkeypatch", f"{full} was replaced"))
        for k, v in self._sys_watch.items():
            if getattr(sys, k, None) is not v:
                found.append(violation("introspection" if k != "exit" else "monkeypatch",
                                       f"sys.{k} was replaced"))
        return found


_MISSING = object()
# Private names worth watching: dunders of Tensor comparisons and the verifier's own helpers.
_PRIVATE_WATCHED = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__sub__", "__abs__",
                    "__getitem__", "__call__", "__bool__", "__float__", "_call_impl", "_getframe",
                    "__import__", "__build_class__"}


def _lookup(owner: Any, name: str) -> Any:
    """The raw attribute ``name`` of a module, or of a class through its MRO (no binding).

    Watched dunders may be inherited (``Tensor.__sub__`` lives on ``TensorBase``); ``getattr`` would
    return a fresh bound method each time, so identity could not be compared.
    """
    for cls in owner.__mro__ if isinstance(owner, type) else (owner,):
        d = vars(cls)
        if name in d:
            return d[name]
    return _MISSING


def _so_files() -> dict[str, float]:
    """Built extension libraries under TORCH_EXTENSIONS_DIR with their modification times."""
    root = os.environ.get("TORCH_EXTENSIONS_DIR", "")
    found: dict[str, float] = {}
    if root and os.path.isdir(root):
        for dirpath, _, files in os.walk(root):
            for f in files:
                if f.endswith(".so"):
                    p = os.path.join(dirpath, f)
                    found[p] = os.stat(p).st_mtime_ns
    return found
