"""Run the GPU checks without pytest: ``PYTHONPATH=. python -m tests.gpu_suite [NAME...]``.

Loads tests/verify/test_gpu.py, runs each ``check_*`` function (or those whose names contain one
of NAME), prints PASSED/FAILED/SKIPPED per check with the failure's message, and ends with a
pytest-like line ``N passed, N failed in S s``. Exit code 0 when nothing failed.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from pathlib import Path


def main(argv: list[str]) -> int:
    """Run the checks named in ``argv`` (all when empty); return the exit code."""
    path = Path(__file__).parent / "verify" / "test_gpu.py"
    spec = importlib.util.spec_from_file_location("akg_gpu_checks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import torch

    checks = [c for c in module.CHECKS if not argv or any(a in c.__name__ for a in argv)]
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    start = time.monotonic()
    for check in checks:
        name = f"tests/verify/test_gpu.py::{check.__name__}"
        if not torch.cuda.is_available():
            print(f"{name} SKIPPED (needs a CUDA GPU)", flush=True)
            counts["skipped"] += 1
            continue
        t0 = time.monotonic()
        try:
            check()
        except Exception:  # noqa: BLE001 - every failure is reported, the run goes on
            print(f"{name} FAILED ({time.monotonic() - t0:.1f} s)\n{traceback.format_exc()}", flush=True)
            counts["failed"] += 1
        else:
            print(f"{name} PASSED ({time.monotonic() - t0:.1f} s)", flush=True)
            counts["passed"] += 1
    parts = [f"{n} {k}" for k, n in counts.items() if n or k != "skipped"]
    print(f"{', '.join(parts)} in {time.monotonic() - start:.1f} s")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
