"""The judge: the trusted process that runs the reference, compares outputs and decides the verdict.

It never imports candidate code. Steps:

1. Load the task and build ``Model`` under the weight seed (the candidate process, started beside
   the judge, meanwhile imports torch and then waits: nothing of the candidate is loaded yet).
2. Once that process says ``imported`` (and idles), time the eager and ``torch.compile`` baselines,
   then tell the parent to let it go on (so nothing of the candidate runs while the baselines are
   timed); analyse the task for the roofline figures while it sets up.
3. For each trial ``t`` (seed ``seed + 1 + t``): draw the inputs, run the reference, free the inputs;
   ask the candidate process for its outputs on the same seed and compare them, chunk by chunk on
   the device, with the files it wrote. One trial's reference outputs live at a time.
4. Attribution (does the kernel do the work?); timing: eager blocks timed here interleaved with the
   candidate's blocks, each of those wall-clocked (:mod:`akg_rag.verify.paired`); the fresh-input
   check; the candidate's guard report.
5. The verdict, sealed with the key from the parent (:mod:`akg_rag.verify.seal`).

A failure of the judge's own steps (say, out of GPU memory while computing the reference) is a
``verifier_error``, which the parent raises as :class:`akg_rag.errors.VerifierError`: never the
candidate's ``runtime_error``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from akg_rag.verify.channel import Channel
from akg_rag.verify.judging import CandidateGone, Judge
from akg_rag.verify.reference import TaskProblem, VerifierProblem

__all__ = ["CandidateGone", "Judge", "TaskProblem", "VerifierProblem", "main"]


def main(argv: list[str]) -> None:
    """``python -P -m akg_rag.verify.judge ROOT READY_FD IN_FD OUT_FD KEY_FD``: judge, seal, exit.

    ``READY_FD`` gets one byte when the candidate process may start; ``IN_FD``/``OUT_FD`` are the
    channel to it. The sealed verdict goes to ``ROOT/result.json``.
    """
    import json
    import sys

    from akg_rag.verify.seal import make_sealer, read_key

    root = Path(argv[0])
    seal = make_sealer(read_key(int(argv[4])))
    ready_fd = int(argv[1])
    chan = Channel(int(argv[2]), int(argv[3]))

    def phase(text: str) -> None:
        try:
            (root / "phase.txt").write_text(text)
        except OSError:
            pass

    def start() -> None:
        os.write(ready_fd, b"S")
        os.close(ready_fd)

    job = json.loads((root / "job.json").read_text())
    verdict: dict[str, Any]
    try:
        verdict = Judge(job, phase, start, chan).run()
    except TaskProblem as e:
        verdict = {"task_error": str(e)}
    except VerifierProblem as e:
        verdict = {"verifier_error": str(e)}
    except BaseException as e:  # noqa: BLE001 - whatever happened, the parent gets a verdict
        verdict = {"verifier_error": f"the judge failed: {type(e).__name__}: {e}"}
    tmp = root / "result.json.tmp"
    tmp.write_text(json.dumps(seal(verdict)))
    os.replace(tmp, root / "result.json")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    import sys as _sys

    main(_sys.argv[1:])
