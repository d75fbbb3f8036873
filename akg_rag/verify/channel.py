"""What crosses between the judge and the candidate process: JSON lines on pipes, outputs as files.

The judge drives; the candidate answers. A message is one JSON object on one line, at most
:data:`MAX_MESSAGE` bytes. Outputs cross as raw files in the candidate's working directory (its only
writable place): ``<tag>.<set>.<index>.bin`` holding the contiguous bytes of one tensor, described in
the answer by shape and dtype. The judge reads them in chunks straight onto its device, after
checking that each is a regular file (no link, no FIFO) of exactly the size its own reference output
implies -- everything from the candidate is untrusted input.
"""

from __future__ import annotations

import ctypes
import json
import os
import stat
from pathlib import Path
from typing import Any

import torch

MAX_MESSAGE = 4 * 1024 * 1024        # bytes per JSON line; a longer one is a protocol error
WRITE_CHUNK = 64 * 1024 * 1024       # bytes copied to the host per write of an output file


class ChannelClosed(Exception):
    """The other side closed its end (it exited or was killed)."""


class ProtocolError(Exception):
    """The other side sent something that is not a valid message."""


class Channel:
    """One end: reads JSON lines from ``read_fd``, writes them to ``write_fd``."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._in = os.fdopen(read_fd, "rb", buffering=0)
        self._out = os.fdopen(write_fd, "wb", buffering=0)
        self._buf = b""

    def send(self, msg: dict[str, Any]) -> None:
        """Write one message; raises :class:`ChannelClosed` when the reader is gone."""
        data = (json.dumps(msg, default=str) + "\n").encode("utf-8")
        try:
            self._out.write(data)
        except (BrokenPipeError, OSError) as e:
            raise ChannelClosed(str(e)) from None

    def recv(self) -> dict[str, Any]:
        """Read one message (blocking)."""
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_MESSAGE:
                raise ProtocolError(f"message longer than {MAX_MESSAGE} bytes")
            part = self._in.read(1 << 16)
            if not part:
                raise ChannelClosed("end of stream")
            self._buf += part
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            msg = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ProtocolError(f"not a JSON line: {e}") from None
        if not isinstance(msg, dict) or not isinstance(msg.get("op"), str):
            raise ProtocolError("a message must be an object with an 'op'")
        return msg

    def close(self) -> None:
        for f in (self._in, self._out):
            try:
                f.close()
            except OSError:
                pass


# -- outputs as files ---------------------------------------------------------------------------
def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def parse_dtype(name: Any) -> torch.dtype | None:
    """The torch dtype called ``name``, or None for anything else (the name is untrusted)."""
    if not isinstance(name, str) or not name.isidentifier():
        return None
    dt = getattr(torch, name, None)
    return dt if isinstance(dt, torch.dtype) else None


def write_tensor(t: torch.Tensor, path: Path) -> dict[str, Any]:
    """Write ``t``'s contiguous bytes to ``path`` in host-sized chunks; returns its description."""
    flat = t.detach().contiguous().reshape(-1)
    raw = (torch.view_as_real(flat) if flat.is_complex() else flat).reshape(-1).view(torch.uint8)
    with open(path, "wb") as f:
        for start in range(0, raw.numel(), WRITE_CHUNK):
            host = raw[start:start + WRITE_CHUNK].to("cpu").contiguous()
            f.write((ctypes.c_ubyte * host.numel()).from_address(host.data_ptr()))
    return {"file": path.name, "shape": list(t.shape), "dtype": dtype_name(t.dtype)}


class TensorFile:
    """A candidate's output file opened safely for reading in chunks as ``dtype`` elements."""

    def __init__(self, directory: Path, name: Any, dtype: torch.dtype, numel: int) -> None:
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            raise ProtocolError(f"bad output file name {name!r}")
        fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        st = os.fstat(fd)
        self.itemsize = torch.empty((), dtype=dtype).element_size()
        expected = numel * self.itemsize
        if not stat.S_ISREG(st.st_mode) or st.st_size != expected:
            os.close(fd)
            raise ProtocolError(f"output file {name} is not a regular file of {expected} bytes")
        self.f = os.fdopen(fd, "rb", buffering=0)
        self.dtype = dtype

    def read(self, start: int, n: int) -> torch.Tensor:
        """Elements ``start .. start+n`` as a host tensor of ``dtype``."""
        buf = bytearray(n * self.itemsize)
        self.f.seek(start * self.itemsize)
        view = memoryview(buf)
        got = 0
        while got < len(buf):
            k = self.f.readinto(view[got:])
            if not k:
                raise ProtocolError("output file shrank while it was read")
            got += k
        return torch.frombuffer(buf, dtype=torch.uint8).view(self.dtype)

    def close(self) -> None:
        self.f.close()
