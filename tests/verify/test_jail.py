"""The unshare level's launcher, driven directly (no torch in the sandbox: about a second a run).

A plain ``python -c`` probe runs inside the root the launcher builds and reports what it can see and
do; the host side checks the claims it can (nothing planted outside, the secret file untouched).
Skipped where this machine refuses the unshare level.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from akg_rag.verify import sandbox
from akg_rag.verify.layout import Mount

PROBE = r"""
import json, os, socket, sys
out = {"uid": os.getuid(), "groups": os.getgroups(), "pid": os.getpid(), "cwd": os.getcwd(),
       "pids": sorted(p for p in os.listdir("/proc") if p.isdigit()),
       "status": {l.split(":")[0]: l.split(":")[1].strip() for l in open("/proc/self/status")
                  if l.startswith(("CapEff", "NoNewPrivs"))}, "wrote": [], "read": []}
for p in ("/planted", "/usr/planted", "/etc/planted", "/dev/planted", sys.argv[1], "./ok", "/tmp/ok"):
    try:
        with open(p, "w") as f:
            f.write("x")
        out["wrote"].append(p)
    except OSError:
        pass
for p in (sys.argv[2], "/etc/shadow"):
    try:
        out["read"].append([p, open(p).read()])
    except OSError:
        pass
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[3])), timeout=2)
    out["connected"] = True
except OSError:
    out["connected"] = False
dev = sys.argv[4]
try:
    out["device"] = len(open(dev, "rb").read(16)) if dev else None
except OSError as e:
    out["device"] = e.strerror
print(json.dumps(out))
"""


def _box() -> sandbox.Sandbox:
    box = sandbox.choose(gpu=False, start="unshare")
    if box.level != "unshare":
        pytest.skip(f"unshare refused here: {box.describe()}")
    return box


def _run(box, work, args, extra_steps=()):
    argv = box.command([sys.executable, "-I", "-c", PROBE, *args], writable=[work], cwd=work, gpu=False)
    at = argv.index(sandbox.JAIL) + 1
    spec = json.loads(argv[at])
    spec["steps"] += [m.to_json() for m in extra_steps]
    argv[at] = json.dumps(spec)
    done = subprocess.run(argv, cwd=work, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                          capture_output=True, text=True, timeout=60, **box.popen_kwargs())
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_candidate_sees_only_its_namespace_and_writes_only_its_directory(tmp_path):
    import socket

    box = _box()
    work = tmp_path / "work"
    work.mkdir()
    box.grant([work])
    secret = tmp_path / "secret.txt"
    secret.write_text("HOSTSECRET")
    secret.chmod(0o644)                             # world-readable: only the mount namespace hides it
    outside = tmp_path / "planted.txt"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    got = _run(box, work, [str(outside), str(secret), str(listener.getsockname()[1]), ""])
    listener.close()
    assert got["pids"] == ["1", "2"] and got["pid"] == 2    # the launcher and itself, nothing else
    assert got["cwd"] == str(work)
    assert got["wrote"] == ["./ok", "/tmp/ok"]              # the working directory and a private /tmp
    assert not outside.exists() and (work / "ok").exists()
    assert got["read"] == [["/etc/shadow", ""]]             # the host file is absent, shadow masked
    assert not got["connected"]
    assert got["status"]["CapEff"] == "0000000000000000" and got["status"]["NoNewPrivs"] == "1"
    if os.getuid() == 0:
        assert got["uid"] == sandbox.NOBODY and got["groups"] == []
    assert not (work / ".akg-root").exists()               # the new root's mount point is gone


def test_a_bound_device_node_stays_usable_while_a_copy_under_a_read_only_bind_does_not(tmp_path):
    """What keeps /dev/nvidia* working: a ``dev`` step binds the node without ``nodev``; the same
    node reached through a read-only bind (``nodev``) cannot be opened."""
    box = _box()
    work = tmp_path / "work"
    work.mkdir()
    box.grant([work])
    dev = Mount("dev", "/dev/nvidia-akg-test", "/dev/zero")
    assert _run(box, work, ["/x", "/x", "1", dev.dest], [dev])["device"] == 16
    nodes = tmp_path / "nodes"
    nodes.mkdir()
    if os.getuid() != 0:
        pytest.skip("making a device node needs root")
    os.mknod(nodes / "zero", 0o666 | 0o020000, os.makedev(1, 5))   # a character device: /dev/zero's numbers
    ro = Mount("ro", "/akg-nodes", str(nodes))
    assert _run(box, work, ["/x", "/x", "1", "/akg-nodes/zero"], [ro])["device"] == "Permission denied"
