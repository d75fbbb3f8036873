"""OS isolation of the candidate process: namespaces (bubblewrap or util-linux unshare), else a uid.

Four levels, the strongest the OS grants, chosen once per process by a probe that starts a real
sandboxed ``python -c "import torch"`` (on a GPU, one that also runs a CUDA operation):

* ``bwrap``: bubblewrap with new user, PID, network, IPC, UTS and mount namespaces, a private
  ``/proc`` and a filesystem made of the system directories (``/usr``, ``/etc`` without its secret
  files, ...), the Python install and the ``akg_rag`` package, all read-only; empty ``/tmp`` and
  ``/dev/shm``; writable only the working directory and the candidate's build cache; CUDA devices
  (``/dev/nvidia*``) bound in when a GPU is used. Started as root, the candidate is uid 65534 inside
  with no capabilities. ``/root``, ``/home``, the caller's checkout and its data are not there.
* ``unshare``: the same namespaces and the same filesystem (:mod:`akg_rag.verify.layout`), made by
  util-linux ``unshare`` and our launcher (:mod:`akg_rag.verify.jail`), for hosts without bubblewrap.
  Started as root, the candidate runs as uid/gid 65534 on the host with no groups, inside a user
  namespace of its own, with ``no_new_privs``. Where user namespaces are refused to an unprivileged
  uid, a root caller still gets every other namespace and uid 65534 (said in ``isolation``).
* ``uid``: started as root where namespaces are refused: the child drops to uid/gid 65534 with no
  supplementary groups. It cannot read root's files, ``/proc/<pid>/environ`` of root processes, or
  write outside world-writable directories, its working directory and its build cache.
* ``none``: neither is possible (an unprivileged user without user namespaces): only the verifier's
  guards stand between the candidate and the user's files.

``AKG_RAG_ISOLATION=unshare`` (or ``uid``, ``none``) starts the search at that level instead of
``bwrap``: to exercise a weaker level where a stronger one exists (the tests do). Falling back below
the namespace levels is said once per process, loudly (stderr and ``logging``), and every result
records the level in ``VerifyResult.isolation``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from akg_rag.verify.layout import bwrap_args, layout

NOBODY = 65534
PROBE_TIMEOUT_S = 120.0
LEVELS = ("bwrap", "unshare", "uid", "none")     # strongest first
JAIL = str(Path(__file__).with_name("jail.py"))  # the unshare level's launcher, run as a script
_log = logging.getLogger("akg_rag.verify.sandbox")


@dataclass
class Sandbox:
    """How to start one candidate process: an argv prefix, a pre-exec hook, a description."""

    level: str                                   # one of LEVELS
    uid: int | None = None                       # uid the candidate runs as outside, when changed
    detail: str = ""                             # why this level (the refusal of the stronger ones)
    userns: bool = True                          # unshare: the candidate gets a user namespace

    def describe(self) -> str:
        """One line for ``VerifyResult.isolation``."""
        if self.level == "bwrap":
            who = f"uid {NOBODY} without capabilities" if os.getuid() == 0 else "the caller's uid"
            return (f"bwrap: user, pid, net, ipc, uts, mount namespaces; private /proc; system "
                    f"directories read-only, writable only the working directory and build cache; {who}")
        if self.level == "unshare":
            who = (f"uid {NOBODY}" if self.uid is not None else "the caller's uid") + " without capabilities"
            spaces = "user, pid, net, ipc, uts, mount" if self.userns else "pid, net, ipc, uts, mount"
            tail = "" if self.userns else f" (no user namespace: {self.detail})"
            return (f"unshare: {spaces} namespaces; private /proc; system directories read-only, writable "
                    f"only the working directory and build cache; {who}{tail}")
        if self.level == "uid":
            return f"uid {NOBODY}: unprivileged user, no namespaces ({self.detail})"
        return f"none: guards only, no OS isolation ({self.detail})"

    def command(self, argv: list[str], *, writable: list[Path], cwd: Path, gpu: bool) -> list[str]:
        """``argv`` wrapped for this level (unchanged at ``uid`` and ``none``)."""
        if self.level == "bwrap":
            return bwrap_argv(writable=writable, cwd=cwd, gpu=gpu) + list(argv)
        if self.level == "unshare":
            return unshare_argv(writable=writable, cwd=cwd, gpu=gpu, uid=self.uid, userns=self.userns) + list(argv)
        return list(argv)

    def popen_kwargs(self) -> dict[str, Any]:
        """Extra ``subprocess.Popen`` arguments: drop to ``nobody`` (no groups) at the ``uid`` level.

        Popen's own ``user``/``group`` switch runs in C between fork and exec, so it is safe in a
        parent with threads (executors run verifications from a thread pool).
        """
        if self.uid is None or self.level != "uid":
            return {}   # unshare drops the uid itself, after building the root as root
        return {"user": self.uid, "group": self.uid, "extra_groups": []}

    def grant(self, paths: list[Path]) -> None:
        """Make ``paths`` (directories the candidate must write) owned by the sandbox's uid."""
        if self.uid is None:
            return
        for p in paths:
            for dirpath, dirnames, filenames in os.walk(p):
                os.chown(dirpath, self.uid, self.uid)
                for name in filenames:
                    try:
                        os.chown(os.path.join(dirpath, name), self.uid, self.uid, follow_symlinks=False)
                    except OSError:
                        pass


def bwrap_argv(*, writable: list[Path], cwd: Path, gpu: bool) -> list[str]:
    """The bubblewrap command line that precedes the child's argv."""
    exe = shutil.which("bwrap") or "bwrap"
    args = [exe, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session"]
    if os.getuid() == 0:
        # inside: uid 65534 with no capabilities; outside it stays root, but sees only the binds below
        args += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    args += bwrap_args(layout(writable=writable, gpu=gpu))
    args += ["--chdir", str(cwd), "--setenv", "HOME", str(cwd), "--setenv", "TMPDIR", "/tmp"]
    return args


def unshare_argv(*, writable: list[Path], cwd: Path, gpu: bool, uid: int | None, userns: bool) -> list[str]:
    """The ``unshare`` + launcher command line that precedes the child's argv.

    As root, ``unshare`` makes the namespaces with the host's privileges and the launcher drops to
    ``uid`` after building the root; otherwise a user namespace (the caller as its root) lets the
    launcher mount, and the candidate gets a nested one where it is the caller's uid again.
    """
    exe = shutil.which("unshare") or "unshare"
    args = [exe, "--pid", "--fork", "--kill-child", "--mount", "--net", "--ipc", "--uts"]
    if os.getuid() != 0:
        args += ["--user", "--map-root-user"]
    spec = {"cwd": str(cwd), "uid": uid, "userns": userns, "inner_uid": NOBODY if uid is not None else os.getuid(),
            "env": {"HOME": str(cwd), "TMPDIR": "/tmp"},
            "steps": [m.to_json() for m in layout(writable=writable, gpu=gpu)]}
    return args + [sys.executable, "-I", JAIL, json.dumps(spec), "--"]


_chosen: dict[tuple[bool, str], Sandbox] = {}
_lock = threading.Lock()


def _probe(box: Sandbox, gpu: bool) -> str | None:
    """None when ``box`` starts Python with torch; else the reason it does not."""
    if box.level == "bwrap" and shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if box.level == "unshare" and shutil.which("unshare") is None:
        return "util-linux unshare is not installed"
    work = Path(tempfile.mkdtemp(prefix="akg-probe-"))
    try:
        box.grant([work])
        code = "import torch, akg_rag.verify.guards; open('probe.ok', 'w').write('1')"
        if gpu:
            # a real CUDA operation: the device nodes, the driver's libraries and /proc must all work
            code += ("; assert torch.cuda.is_available(), 'CUDA is not visible inside the sandbox'"
                     "; assert torch.ones(2, device='cuda').sum().item() == 2")
        argv = box.command([sys.executable, "-P", "-c", code], writable=[work], cwd=work, gpu=gpu)
        from akg_rag.verify.env import package_root

        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES")}
        env["PYTHONPATH"] = package_root()
        try:
            done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=PROBE_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL, **box.popen_kwargs())
        except (OSError, subprocess.SubprocessError) as e:
            return f"{type(e).__name__}: {e}"
        if done.returncode != 0 or not (work / "probe.ok").exists():
            tail = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()[-3:]
            return f"exit {done.returncode}: {' | '.join(tail)[:400]}"
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def choose(gpu: bool, start: str | None = None) -> Sandbox:
    """The strongest sandbox this machine grants, from ``start`` down (default: ``$AKG_RAG_ISOLATION``,
    else ``bwrap``); probed once per process, per GPU use and per start level."""
    start = start or os.environ.get("AKG_RAG_ISOLATION") or LEVELS[0]
    if start not in LEVELS:
        from akg_rag.errors import ConfigError

        raise ConfigError(f"unknown isolation level {start!r} (AKG_RAG_ISOLATION); allowed: {', '.join(LEVELS)}")
    with _lock:
        if (gpu, start) not in _chosen:
            _chosen[(gpu, start)] = _search(gpu, LEVELS[LEVELS.index(start):])
        return _chosen[(gpu, start)]


def _candidates(levels: tuple[str, ...]) -> list[Sandbox]:
    """The sandboxes to probe, strongest first (root has more of them: it can change uid)."""
    root = os.getuid() == 0
    boxes = []
    for level in levels:
        if level == "bwrap":
            boxes.append(Sandbox("bwrap"))
        elif level == "unshare":
            boxes.append(Sandbox("unshare", uid=NOBODY if root else None))
            if root:    # user namespaces refused to uid 65534: every other namespace still holds
                boxes.append(Sandbox("unshare", uid=NOBODY, userns=False))
        elif level == "uid" and root:
            boxes.append(Sandbox("uid", uid=NOBODY))
    return boxes


def _search(gpu: bool, levels: tuple[str, ...]) -> Sandbox:
    refusals: list[str] = []
    for box in _candidates(levels):
        box.detail = "; ".join(refusals)
        why = _probe(box, gpu)
        if why is None:
            if box.level in ("uid", "none"):
                _warn(box)
            return box
        what = box.level if box.userns else f"{box.level} without a user namespace"
        refusals.append(f"{what} refused: {why}")
    box = Sandbox("none", detail="; ".join(refusals) or "asked for (AKG_RAG_ISOLATION=none)")
    _warn(box)
    return box


def _warn(box: Sandbox) -> None:
    """Say once, loudly, that candidates run with less isolation than intended."""
    text = ("akg-rag verifier: WARNING: candidate processes are NOT in namespaces; isolation: "
            f"{box.describe()}. Install bubblewrap (or util-linux unshare) and allow namespaces for full "
            "isolation.")
    print(text, file=sys.stderr, flush=True)
    _log.warning(text)
