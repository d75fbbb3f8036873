"""What the candidate process's filesystem holds inside a namespace sandbox.

One list of :class:`Mount` steps, applied in order, describes the new root for both namespace
levels of :mod:`akg_rag.verify.sandbox`: bubblewrap gets it as command-line options
(:func:`bwrap_args`), the ``unshare`` level's launcher (:mod:`akg_rag.verify.jail`) replays it
with ``mount(2)``. The root starts empty; it gets the system directories (``/usr``, ``/etc`` with
its secret files masked, ...), the Python install and the ``akg_rag`` package read-only, a private
``/proc``, a minimal ``/dev`` (plus ``/dev/nvidia*`` when a GPU is used), empty ``/tmp`` and
``/dev/shm``, and, writable, only the candidate's working directory and its build cache. ``/root``,
``/home``, the caller's checkout and its data are not there.
"""

from __future__ import annotations

import glob
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

# System directories the child sees read-only; everything else (/root, /home, /work, /srv, /mnt,
# /var, /tmp, the caller's checkout) is absent. Files that hold secrets inside them are masked.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/sys")
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private",
          "/etc/sudoers", "/etc/sudoers.d")
# Shared objects whose directories a CUDA process must read (the driver's user-space libraries).
GPU_LIBS = ("libcuda.so", "libnvidia-", "libcudart.so", "libnvrtc", "libcublas", "libcudnn")

Kind = Literal["ro", "rw", "dev", "symlink", "tmpfs", "proc", "devfs", "hide"]


@dataclass(frozen=True)
class Mount:
    """One step of the new root: ``kind`` at ``dest`` (``src`` for binds, the target for a symlink).

    Kinds: ``ro``/``rw`` bind ``src`` read-only/writable; ``dev`` binds a device node (or a
    directory of them) usable as such; ``symlink``; ``tmpfs`` an empty writable directory in memory;
    ``proc`` a procfs of the new PID namespace; ``devfs`` a minimal ``/dev``; ``hide`` masks a
    secret file (``/dev/null`` bound over it) or directory (an empty tmpfs).
    """

    kind: Kind
    dest: str
    src: str = ""

    def to_json(self) -> dict[str, str]:
        """The step as a JSON-ready dict (the ``unshare`` launcher reads these)."""
        return asdict(self)


def readable_roots(gpu: bool) -> list[str]:
    """Directories outside the system ones that the child must read: Python, site-packages, akg_rag,
    CUDA, and with a GPU the directories of the driver's libraries and of ``LD_LIBRARY_PATH``."""
    import akg_rag

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             os.path.dirname(os.path.abspath(akg_rag.__file__))}
    roots.update(p for p in sys.path if p and os.path.isdir(p) and p.rstrip("/").endswith(
        ("site-packages", "dist-packages", "lib-dynload")) or p.rstrip("/").endswith(
        f"python{sys.version_info[0]}.{sys.version_info[1]}"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            roots.add(os.environ[var])
    if gpu:
        roots.update(p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p)
        roots.update(gpu_library_dirs())
    found = sorted(r for r in {os.path.realpath(r) for r in roots} if os.path.isdir(r))
    return [r for r in found if not any(r.startswith(o.rstrip("/") + "/") for o in found if o != r)]


def gpu_library_dirs() -> set[str]:
    """Directories of the CUDA libraries this process has loaded (``/proc/self/maps``): the driver
    may live outside ``/usr`` (``/usr/local/nvidia`` is inside; some hosts use ``/run`` or ``/opt``)."""
    dirs = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split(maxsplit=5)         # address perms offset dev inode [path]
                path = parts[5].strip() if len(parts) == 6 else ""
                if path.startswith("/") and os.path.basename(path).startswith(GPU_LIBS):
                    dirs.add(os.path.dirname(os.path.realpath(path)))
    except OSError:
        pass
    return dirs


def layout(*, writable: list[Path], gpu: bool) -> list[Mount]:
    """The steps that build the candidate's root, in order (later steps mount over earlier ones)."""
    steps: list[Mount] = []
    for d in SYSTEM:
        if os.path.islink(d):
            steps.append(Mount("symlink", d, os.readlink(d)))
        elif os.path.isdir(d):
            steps.append(Mount("ro", d, d))
    for m in MASKED:
        if (os.path.isdir(m) and not os.path.islink(m)) or os.path.isfile(m):
            steps.append(Mount("hide", m))
    steps += [Mount("proc", "/proc"), Mount("devfs", "/dev"), Mount("tmpfs", "/tmp"), Mount("tmpfs", "/dev/shm")]
    if gpu:
        steps += [Mount("dev", dev, dev) for dev in sorted(glob.glob("/dev/nvidia*"))]
    for root in readable_roots(gpu):
        if not root.startswith(tuple(d + "/" for d in SYSTEM)):
            steps.append(Mount("ro", root, root))
    steps += [Mount("rw", str(w), str(w)) for w in writable]
    return steps


def bwrap_args(steps: list[Mount]) -> list[str]:
    """The steps as bubblewrap options."""
    args: list[str] = []
    for s in steps:
        if s.kind == "symlink":
            args += ["--symlink", s.src, s.dest]
        elif s.kind == "hide":
            args += ["--tmpfs", s.dest] if os.path.isdir(s.dest) else ["--ro-bind", "/dev/null", s.dest]
        else:
            flag = {"ro": "--ro-bind", "rw": "--bind", "dev": "--dev-bind", "tmpfs": "--tmpfs",
                    "proc": "--proc", "devfs": "--dev"}[s.kind]
            args += [flag, s.src, s.dest] if s.src else [flag, s.dest]
    return args
