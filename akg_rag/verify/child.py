"""The verification child: ``python -P -m akg_rag.verify.child ROOT KEY_FD``.

Runs in a fresh process started by :func:`akg_rag.verify.runner.verify`, in a private working
directory, with credentials stripped from its environment. Order matters for trust: the key is read,
the reference is run and the baselines are timed *before* any candidate code is imported, so a
candidate can neither slow the baseline down nor see the key. The verdict is sealed
(:mod:`akg_rag.verify.seal`) into ``ROOT/result.json``; stdout is never part of the result.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path
from typing import Any

_exit = os._exit  # the real one: the hooks replace os._exit before the candidate loads


def _phase(root: Path, text: str) -> None:
    """Record how far the child got (read by the parent only to explain a timeout or crash)."""
    try:
        (root / "phase.txt").write_text(text)
    except OSError:
        pass


def _limit_memory(backend: str, memory_mb: int) -> None:
    """Cap the address space on CPU; CUDA maps huge virtual ranges, so there the parent watches RSS."""
    if backend != "cuda":
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(argv: list[str]) -> None:
    """Entry point: read the key, run the protocol, write the sealed verdict, exit."""
    from akg_rag.verify.seal import make_sealer, read_key

    root = Path(argv[0])
    seal = make_sealer(read_key(int(argv[1])))
    job = json.loads((root / "job.json").read_text())
    verdict: dict[str, Any]
    try:
        _limit_memory(job["backend"], int(job["memory_mb"]))
        from akg_rag.verify.protocol import Protocol

        protocol = Protocol(job, lambda text: _phase(root, text))
        verdict = protocol.run()
    except BaseException as e:  # noqa: BLE001 - whatever happened, the parent gets a verdict
        verdict = {"status": "runtime_error", "feedback": f"verifier child failed: {type(e).__name__}: {e}"}
        try:
            verdict = protocol.verdict_from_exception(e)  # type: ignore[possibly-undefined]
        except BaseException:  # noqa: BLE001
            pass
    sealed = seal(verdict)
    tmp = root / "result.json.tmp"
    tmp.write_text(json.dumps(sealed))
    os.replace(tmp, root / "result.json")
    sys.stdout.flush()
    sys.stderr.flush()
    _exit(0)  # skip atexit handlers a candidate may have registered


if __name__ == "__main__":
    main(sys.argv[1:])
