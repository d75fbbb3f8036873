"""The ``unshare`` sandbox's launcher: builds the candidate's root inside fresh namespaces, then execs.

Run by :mod:`akg_rag.verify.sandbox` as ``unshare --pid --fork --kill-child --mount --net --ipc
--uts [--user --map-root-user] python -I jail.py SPEC -- ARGV...``: util-linux ``unshare`` makes
the PID, mount, network, IPC and UTS namespaces (and, for a caller that is not root, a user
namespace in which it may mount); this script, PID 1 there, then

1. builds a new root on a tmpfs from the steps of :mod:`akg_rag.verify.layout` (system
   directories and the Python install bound read-only and ``nosuid``, a private ``/proc``, a
   minimal ``/dev`` plus the GPU's device nodes, empty ``/tmp``; writable only the working directory
   and the build cache), makes the root and ``/dev`` read-only, ``pivot_root``s into it and detaches
   the old root, so nothing else of the host is reachable by any path;
2. forks the candidate's process, which drops to uid/gid 65534 with no groups when started as
   root, enters a user namespace of its own (mapping only its uid), sets ``no_new_privs`` and execs
   ``ARGV`` in the working directory: it holds no capability anywhere;
3. waits, reaping orphans as an init does, and exits with the candidate's status (``128 + N`` for
   a death by signal ``N``, as bubblewrap and shells report it). When it exits, the kernel kills
   everything left in the PID namespace.

Standard library only (``ctypes`` for the system calls Python does not wrap), and no import of
``akg_rag``: it runs before the sandbox exists. Linux on x86_64 or aarch64.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
MNT_DETACH = 0x2
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
CLONE_NEWUSER = 0x10000000
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
SYSCALLS = {"x86_64": {"pivot_root": 155, "mount_setattr": 442},
            "aarch64": {"pivot_root": 41, "mount_setattr": 442}}
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
TMPFS_OPTS = "mode=1777,size=1g"      # /tmp and /dev/shm: in memory, so bounded (1 GiB each)
ROOT_NAME = ".akg-root"               # the new root's mount point, made inside the working directory

_libc = ctypes.CDLL(None, use_errno=True)


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _check(ret: int, what: str) -> int:
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return ret


def _mount(src: str | None, dest: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda s: s.encode() if s is not None else None)
    _check(_libc.mount(enc(src), enc(dest), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {dest}")


def _syscall(name: str) -> int:
    arch = platform.machine()
    if arch not in SYSCALLS:
        raise OSError(f"no system call table for {arch}")
    return SYSCALLS[arch][name]


def _restrict(path: str, attrs: int, recursive: bool) -> None:
    """Set mount attributes (read-only, nosuid, nodev) on ``path`` and, when ``recursive``, on
    every mount below it: mount_setattr(2), else a bind remount per mount (older kernels)."""
    attr = _MountAttr(attr_set=attrs)
    ret = _libc.syscall(_syscall("mount_setattr"), AT_FDCWD, path.encode(), AT_RECURSIVE if recursive else 0,
                        ctypes.byref(attr), ctypes.sizeof(attr))
    if ret == 0:
        return
    if ctypes.get_errno() != 38:       # ENOSYS: before Linux 5.12
        _check(ret, f"mount_setattr {path}")
    targets = [path] + ([m for m in _mounts() if m.startswith(path.rstrip("/") + "/")] if recursive else [])
    for t in targets:
        st = os.statvfs(t)
        # a remount must keep the flags the kernel locked on the mount (in a user namespace)
        kept = sum(f for f, bit in ((MS_NOEXEC, os.ST_NOEXEC), (MS_NOSUID, os.ST_NOSUID),
                                    (MS_NODEV, os.ST_NODEV), (MS_RDONLY, os.ST_RDONLY)) if st.f_flag & bit)
        for attr_bit, flag in ((MOUNT_ATTR_RDONLY, MS_RDONLY), (MOUNT_ATTR_NOSUID, MS_NOSUID),
                               (MOUNT_ATTR_NODEV, MS_NODEV)):
            kept |= flag if attrs & attr_bit else 0
        _mount(None, t, None, MS_REMOUNT | MS_BIND | kept)


def _mounts() -> list[str]:
    """Mount points of this mount namespace (``/proc/self/mountinfo``, octal escapes decoded)."""
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        points = [line.split()[4] for line in f]
    return [p.encode().decode("unicode_escape") for p in points]


def _ensure(path: str, like: str) -> None:
    """Create ``path`` as a mount point for ``like``: a directory, or an empty file."""
    if os.path.lexists(path):
        return
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    if os.path.isdir(like):
        os.mkdir(path, 0o755)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def _devfs(root: str) -> None:
    """A minimal ``/dev``: the harmless character devices bound from the host, the fd links, ``shm``."""
    dev = root + "/dev"
    os.makedirs(dev, mode=0o755, exist_ok=True)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID, "mode=0755,size=1m")
    for name in DEV_NODES:
        if os.path.exists("/dev/" + name):
            _ensure(f"{dev}/{name}", "/dev/" + name)
            _mount("/dev/" + name, f"{dev}/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{dev}/{name}")
    os.mkdir(dev + "/shm", 0o1777)


def build_root(root: str, steps: list[dict[str, str]]) -> None:
    """Apply the layout's steps under ``root`` (a fresh tmpfs), then make it and ``/dev`` read-only."""
    for s in steps:
        kind, dest, src = s["kind"], root + s["dest"], s.get("src", "")
        if kind == "symlink":
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.symlink(src, dest)
        elif kind in ("ro", "rw", "dev"):
            if not os.path.exists(src):
                continue
            _ensure(dest, src)
            recursive = kind == "ro" or (kind == "dev" and os.path.isdir(src))
            _mount(src, dest, None, MS_BIND | (MS_REC if recursive else 0))
            attrs = {"ro": MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                     "rw": MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, "dev": MOUNT_ATTR_NOSUID}[kind]
            _restrict(dest, attrs, recursive)
        elif kind == "hide":
            if os.path.isdir(dest):
                _mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "mode=0755,size=4k")
            elif os.path.exists(dest):
                _mount("/dev/null", dest, None, MS_BIND)
        elif kind == "tmpfs":
            os.makedirs(dest, mode=0o755, exist_ok=True)
            _mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV, TMPFS_OPTS)
        elif kind == "proc":
            os.makedirs(dest, mode=0o555, exist_ok=True)
            _mount("proc", dest, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "devfs":
            _devfs(root)
        else:
            raise ValueError(f"unknown layout step {kind!r}")
    _restrict(root + "/dev", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, False)
    _restrict(root, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, False)


def enter_root(cwd: str, steps: list[dict[str, str]]) -> None:
    """Build the new root on a tmpfs mounted inside ``cwd``, pivot into it, detach the old root."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)            # nothing we mount leaks to the host
    root = os.path.join(cwd, ROOT_NAME)
    os.mkdir(root, 0o755)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m")
    build_root(root, steps)
    os.chdir(root)
    _check(_libc.syscall(_syscall("pivot_root"), b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "detaching the old root")
    os.chdir("/")
    try:
        os.rmdir(root)                                      # the mount point, seen through the work bind
    except OSError:
        pass


def become_candidate(spec: dict) -> None:
    """In the forked child: drop every privilege, then take a user namespace of its own."""
    if spec.get("uid") is not None:
        # started as root: an unprivileged uid in the host's user namespace, no groups
        os.setgroups([])
        os.setgid(spec["uid"])
        os.setuid(spec["uid"])
        _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl(PR_SET_DUMPABLE)")  # to write its uid_map
    if spec.get("userns"):
        outer_uid, outer_gid = os.geteuid(), os.getegid()
        _check(_libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
        for name, text in (("setgroups", "deny"), ("uid_map", f"{spec['inner_uid']} {outer_uid} 1"),
                           ("gid_map", f"{spec['inner_uid']} {outer_gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    os.chdir(spec["cwd"])


def main(argv: list[str]) -> int:
    """``jail.py SPEC -- ARGV...``; returns the exit status for PID 1."""
    spec, cmd = json.loads(argv[0]), argv[argv.index("--") + 1:]
    enter_root(spec["cwd"], spec["steps"])
    env = dict(os.environ, **spec.get("env", {}))
    child = os.fork()
    if child == 0:
        try:
            become_candidate(spec)
            os.execve(cmd[0], cmd, env)
        except BaseException as e:  # noqa: BLE001 - say why, then leave without running Python's exit
            os.write(2, f"akg-rag jail: {type(e).__name__}: {e}\n".encode())
        os._exit(127)
    os.closerange(3, 1 << 16)       # the candidate's pipes: its end of them must close when it does
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return 127
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            return 128 - code if code < 0 else code


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except OSError as e:
        print(f"akg-rag jail: cannot build the sandbox: {e}", file=sys.stderr, flush=True)
        sys.exit(126)
