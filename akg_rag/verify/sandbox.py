"""OS isolation of the candidate process: namespaces with bubblewrap, else an unprivileged uid.

Three levels, the strongest the OS grants, chosen once per process by a probe that starts a real
sandboxed ``python -c "import torch"``:

* ``bwrap``: bubblewrap with new user, PID, network, IPC, UTS and mount namespaces, a private
  ``/proc`` and a filesystem made of the system directories (``/usr``, ``/etc`` without its secret
  files, ...), the Python install and the ``akg_rag`` package, all read-only; empty ``/tmp`` and
  ``/dev/shm``; writable only the working directory and the candidate's build cache; CUDA devices
  (``/dev/nvidia*``) bound in when a GPU is used. Started as root, the candidate is uid 65534 inside
  with no capabilities. ``/root``, ``/home``, the caller's checkout and its data are not there.
* ``uid``: started as root where namespaces are refused: the child drops to uid/gid 65534 with no
  supplementary groups. It cannot read root's files, ``/proc/<pid>/environ`` of root processes, or
  write outside world-writable directories, its working directory and its build cache.
* ``none``: neither is possible (an unprivileged user without user namespaces): only the verifier's
  guards stand between the candidate and the user's files.

Falling back below ``bwrap`` is said once per process, loudly (stderr and ``logging``), and every
result records the level in ``VerifyResult.isolation``.
"""

from __future__ import annotations

import glob
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

NOBODY = 65534
PROBE_TIMEOUT_S = 120.0
_log = logging.getLogger("akg_rag.verify.sandbox")


@dataclass
class Sandbox:
    """How to start one candidate process: an argv prefix, a pre-exec hook, a description."""

    level: str                                   # "bwrap", "uid" or "none"
    uid: int | None = None                       # uid the candidate runs as outside, when changed
    detail: str = ""                             # why this level (the refusal of the stronger ones)

    def describe(self) -> str:
        """One line for ``VerifyResult.isolation``."""
        if self.level == "bwrap":
            who = f"uid {NOBODY} without capabilities" if os.getuid() == 0 else "the caller's uid"
            return (f"bwrap: user, pid, net, ipc, uts, mount namespaces; private /proc; system "
                    f"directories read-only, writable only the working directory and build cache; {who}")
        if self.level == "uid":
            return f"uid {NOBODY}: unprivileged user, no namespaces ({self.detail})"
        return f"none: guards only, no OS isolation ({self.detail})"

    def command(self, argv: list[str], *, writable: list[Path], cwd: Path, gpu: bool) -> list[str]:
        """``argv`` wrapped for this level (unchanged except for ``bwrap``)."""
        if self.level != "bwrap":
            return list(argv)
        return bwrap_argv(writable=writable, cwd=cwd, gpu=gpu) + list(argv)

    def popen_kwargs(self) -> dict[str, Any]:
        """Extra ``subprocess.Popen`` arguments: drop to ``nobody`` (no groups) at the ``uid`` level.

        Popen's own ``user``/``group`` switch runs in C between fork and exec, so it is safe in a
        parent with threads (executors run verifications from a thread pool).
        """
        if self.uid is None:
            return {}
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


def _readable_roots() -> list[str]:
    """Directories outside the system ones that the child must read: Python, site-packages, akg_rag."""
    import akg_rag

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             os.path.dirname(os.path.abspath(akg_rag.__file__))}
    roots.update(p for p in sys.path if p and os.path.isdir(p) and p.rstrip("/").endswith(
        ("site-packages", "dist-packages", "lib-dynload")) or p.rstrip("/").endswith(
        f"python{sys.version_info[0]}.{sys.version_info[1]}"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            roots.add(os.environ[var])
    found = sorted(r for r in {os.path.realpath(r) for r in roots} if os.path.isdir(r))
    return [r for r in found if not any(r.startswith(o.rstrip("/") + "/") for o in found if o != r)]


# System directories the child sees read-only; everything else (/root, /home, /work, /srv, /mnt,
# /var, /tmp, the caller's checkout) is absent. Files that hold secrets inside them are masked.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/sys")
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private",
          "/etc/sudoers", "/etc/sudoers.d")


def bwrap_argv(*, writable: list[Path], cwd: Path, gpu: bool) -> list[str]:
    """The bubblewrap command line that precedes the child's argv."""
    exe = shutil.which("bwrap") or "bwrap"
    args = [exe, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session"]
    if os.getuid() == 0:
        # inside: uid 65534 with no capabilities; outside it stays root, but sees only the binds below
        args += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    for d in SYSTEM:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for m in MASKED:
        if os.path.isdir(m) and not os.path.islink(m):
            args += ["--tmpfs", m]
        elif os.path.isfile(m):
            args += ["--ro-bind", "/dev/null", m]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    if gpu:
        for dev in sorted(glob.glob("/dev/nvidia*")):
            args += ["--dev-bind", dev, dev]
    for root in _readable_roots():
        if not root.startswith(tuple(d + "/" for d in SYSTEM)):
            args += ["--ro-bind", root, root]
    for w in writable:
        args += ["--bind", str(w), str(w)]
    args += ["--chdir", str(cwd), "--setenv", "HOME", str(cwd), "--setenv", "TMPDIR", "/tmp"]
    return args


_chosen: dict[bool, Sandbox] = {}
_lock = threading.Lock()


def _probe(box: Sandbox, gpu: bool) -> str | None:
    """None when ``box`` starts Python with torch; else the reason it does not."""
    if box.level == "bwrap" and shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    work = Path(tempfile.mkdtemp(prefix="akg-probe-"))
    try:
        box.grant([work])
        code = "import torch, akg_rag.verify.guards; open('probe.ok', 'w').write('1')"
        if gpu:
            code += "; assert torch.cuda.is_available(), 'CUDA is not visible inside the sandbox'"
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


def choose(gpu: bool) -> Sandbox:
    """The strongest sandbox this machine grants (probed once per process and per GPU use)."""
    with _lock:
        if gpu in _chosen:
            return _chosen[gpu]
        root = os.getuid() == 0
        refusals = []
        box = Sandbox("bwrap", uid=None)
        why = _probe(box, gpu)
        if why is None:
            _chosen[gpu] = box
            return box
        refusals.append(f"bwrap refused: {why}")
        if root:
            box = Sandbox("uid", uid=NOBODY, detail="; ".join(refusals))
            why = _probe(box, gpu)
            if why is None:
                _warn(box)
                _chosen[gpu] = box
                return box
            refusals.append(f"uid {NOBODY} refused: {why}")
        box = Sandbox("none", detail="; ".join(refusals))
        _warn(box)
        _chosen[gpu] = box
        return box


def _warn(box: Sandbox) -> None:
    """Say once, loudly, that candidates run with less isolation than intended."""
    text = ("akg-rag verifier: WARNING: candidate processes are NOT in namespaces; isolation: "
            f"{box.describe()}. Install bubblewrap and allow user namespaces for full isolation.")
    print(text, file=sys.stderr, flush=True)
    _log.warning(text)
