"""The verifier: the single judge of every kernel candidate (layer 1: torch and triton only).

``verify(task, candidate, dsl=..., backend=...)`` runs a candidate in a sandboxed child process and
returns a :class:`VerifyResult`; executors (:mod:`akg_rag.verify.executor`) run many in parallel and
:mod:`akg_rag.verify.bench` benchmarks a whole directory. Importing this package imports no torch.
"""

from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.result import STATUSES, Timings, VerifyResult
from akg_rag.verify.runner import verify

__all__ = ["STATUSES", "Timings", "VerifyOptions", "VerifyResult", "verify"]
