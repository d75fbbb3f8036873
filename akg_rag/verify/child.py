"""The candidate process: ``python -P -m akg_rag.verify.child WORK IN_FD OUT_FD GO_FD``.

Started by :func:`akg_rag.verify.runner.verify` inside the sandbox (:mod:`akg_rag.verify.sandbox`),
in its working directory ``WORK``, with credentials stripped from its environment. It holds no key
and writes no verdict: it answers the judge's commands on the channel ``IN_FD``/``OUT_FD``
(:mod:`akg_rag.verify.protocol`) and exits. Whatever it prints goes to the log only.

It is started beside the judge, so that its interpreter and torch import overlap the judge's
loading of the task; it then says ``imported`` on the channel (the judge times its baselines only
after that, with this process idle) and waits for one byte on ``GO_FD``, which the parent writes
once the judge has timed them. Nothing of the candidate -- not even its task module -- is loaded
before the byte comes; end of file there (the judge failed) ends the process.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path

_exit = os._exit  # the real one: the hooks replace os._exit before the candidate loads


def _limit_memory(backend: str, memory_mb: int) -> None:
    """Cap the address space on CPU; CUDA maps huge virtual ranges, so there the parent watches RSS."""
    if backend != "cuda":
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(argv: list[str]) -> None:
    """Entry point: serve the judge, then exit without running a candidate's atexit handlers."""
    work = Path(argv[0])
    job = json.loads((work / "job.json").read_text())
    _limit_memory(job["backend"], int(job["memory_mb"]))
    from akg_rag.verify.channel import Channel
    from akg_rag.verify.protocol import CandidateSide

    def phase(text: str) -> None:  # the judge records the phase that matters
        pass

    chan = Channel(int(argv[1]), int(argv[2]))
    try:
        chan.send({"op": "imported"})
        go = int(argv[3])
        if os.read(go, 1) != b"G":
            _exit(0)
        os.close(go)
        CandidateSide(job, chan, phase).serve()
    except BaseException:  # noqa: BLE001 - the channel is gone: nothing left to tell
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    _exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
