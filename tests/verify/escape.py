"""The OS-escape candidate (candidates/rt_escape_os.py) with its placeholders filled, shared by the
sandbox tests on this machine (test_sandbox.py) and on the GPU (test_gpu.py, also run by
tests/gpu_suite.py without pytest): a world-readable host secret, a path outside the candidate's
working directory, and a listener on the host's loopback."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent


@dataclass
class Escape:
    candidate: Path       # the filled candidate file
    secret: Path          # world-readable: only a mount namespace hides it
    planted: Path         # where the candidate tries to write outside its working directory
    listener: socket.socket

    def reached(self) -> bool:
        """Whether anything connected to the listener (then closed)."""
        try:
            self.listener.accept()
            return True
        except BlockingIOError:
            return False
        finally:
            self.listener.close()


def escape_candidate(tmp: Path, secret_text: str) -> Escape:
    secret, planted = tmp / "secret.txt", tmp / "planted.txt"
    secret.write_text(secret_text)
    secret.chmod(0o644)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    source = (HERE / "candidates" / "rt_escape_os.py").read_text().replace("@SECRET_FILE@", str(secret)) \
        .replace("@OUTSIDE@", str(planted)).replace("@PORT@", str(port))
    cand = tmp / "escape.py"
    cand.write_text(source)
    return Escape(cand, secret, planted, listener)
