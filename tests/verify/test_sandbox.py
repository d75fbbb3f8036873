"""OS isolation of the candidate process: credentials and the host filesystem out of reach.

The escape candidate uses posix calls and a socket, below every Python hook, so only the OS stands
in its way. The verification runs in a subprocess whose environment holds an OPENAI_API_KEY, as a
user's would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from akg_rag.verify import sandbox
from tests.verify.escape import escape_candidate

HERE = Path(__file__).parent
ROOT = HERE.parent.parent

DRIVER = """
import json, sys
from akg_rag.verify import VerifyOptions, verify
r = verify(sys.argv[1], candidate_source=open(sys.argv[2]).read(), dsl="triton", backend="cpu",
           options=VerifyOptions(trials=1, timing=False, static_guards=False, timeout_s=120.0))
print("RESULT " + json.dumps(r.to_dict()))
"""


def test_bwrap_argv_shows_no_host_data_and_binds_only_the_work_dirs(tmp_path):
    argv = sandbox.bwrap_argv(writable=[tmp_path], cwd=tmp_path, gpu=False)
    for flag in ("--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent"):
        assert flag in argv
    assert ["--proc", "/proc"] == argv[argv.index("--proc"):argv.index("--proc") + 2]
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert binds == [str(tmp_path)]
    ro = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    assert "/" not in ro and "/root" not in ro and "/home" not in ro and "/work" not in ro
    at = argv.index("/etc/shadow") if "/etc/shadow" in argv else 0
    assert ["--ro-bind", "/dev/null", "/etc/shadow"] == argv[at - 2:at + 1] \
        or not os.path.exists("/etc/shadow")


def test_unshare_argv_makes_every_namespace_and_hands_the_layout_to_the_launcher(tmp_path):
    argv = sandbox.unshare_argv(writable=[tmp_path], cwd=tmp_path, gpu=False, uid=sandbox.NOBODY, userns=True)
    for flag in ("--pid", "--fork", "--kill-child", "--mount", "--net", "--ipc", "--uts"):
        assert flag in argv
    assert argv[-1] == "--" and argv[-3] == sandbox.JAIL and argv[-4] == "-I"
    spec = json.loads(argv[-2])
    assert spec["cwd"] == str(tmp_path) and spec["uid"] == sandbox.NOBODY and spec["inner_uid"] == sandbox.NOBODY
    assert [s["dest"] for s in spec["steps"] if s["kind"] == "rw"] == [str(tmp_path)]
    assert {"kind": "proc", "dest": "/proc", "src": ""} in spec["steps"]
    # root builds the root itself and drops the uid in the launcher, never through Popen
    assert sandbox.Sandbox("unshare", uid=sandbox.NOBODY).popen_kwargs() == {}


def test_levels_are_tried_strongest_first_and_a_start_level_skips_the_stronger_ones():
    boxes = [(b.level, b.userns) for b in sandbox._candidates(sandbox.LEVELS)]
    if os.getuid() == 0:   # root may also drop its uid, with or without a user namespace
        assert boxes == [("bwrap", True), ("unshare", True), ("unshare", False), ("uid", True)]
    else:
        assert boxes == [("bwrap", True), ("unshare", True)]
    assert [b.level for b in sandbox._candidates(("uid", "none"))] == (["uid"] if os.getuid() == 0 else [])


def test_unknown_isolation_level_is_a_config_error():
    from akg_rag.errors import ConfigError

    with pytest.raises(ConfigError, match="allowed: bwrap, unshare, uid, none"):
        sandbox.choose(gpu=False, start="chroot")


def test_levels_describe_themselves():
    assert sandbox.Sandbox("bwrap").describe().startswith("bwrap: user, pid, net")
    assert sandbox.Sandbox("unshare", uid=sandbox.NOBODY).describe().startswith("unshare: user, pid, net")
    assert "no user namespace" in sandbox.Sandbox("unshare", uid=sandbox.NOBODY, userns=False, detail="x").describe()
    assert "guards only" in sandbox.Sandbox("none", detail="no bwrap").describe()
    assert sandbox.Sandbox("uid", uid=sandbox.NOBODY).popen_kwargs() == {
        "user": sandbox.NOBODY, "group": sandbox.NOBODY, "extra_groups": []}


@pytest.mark.parametrize("level", ["bwrap", "unshare"])
def test_credentials_host_files_and_network_are_out_of_reach(tmp_path, level):
    """At each namespace level this machine grants: the parent's /proc, a world-readable host file,
    a file outside the working directory and a listener on the host's loopback are out of reach."""
    got_level = sandbox.choose(gpu=False, start=level)
    if got_level.level != level:
        pytest.skip(f"{level} refused here: {got_level.describe()}")
    esc = escape_candidate(tmp_path, "HOSTSECRET-7f3a")
    env = dict(os.environ, OPENAI_API_KEY="sk-akg-test-0123456789", PYTHONPATH=str(ROOT), AKG_RAG_ISOLATION=level)
    done = subprocess.run([sys.executable, "-c", DRIVER, str(HERE / "tasks" / "rowscale.py"), str(esc.candidate)],
                          env=env, capture_output=True, text=True, timeout=300)
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(line[0][len("RESULT "):])
    assert result["isolation"].startswith(level)
    escape = [ln for ln in result["log"].splitlines() if ln.startswith("ESCAPE ")]
    assert escape, result["log"]
    got = json.loads(escape[0][len("ESCAPE "):])
    assert got["environ_hits"] == 0                  # no process of the caller is visible
    assert got["host_file"] is None                  # the host's files are not there
    assert not got["planted"] and not esc.planted.exists()
    assert not got["connected"]
    assert not esc.reached()
    assert result["status"] == "correct"             # the OS refused; the kernel itself is fine
