"""The verifier: the single judge of every kernel candidate (layer 1: torch and triton only).

``verify(task, candidate, dsl=..., backend=...)`` runs the reference in a trusted judge process and
the candidate in a sandboxed one (:mod:`akg_rag.verify.sandbox`); the judge compares their outputs
and returns a :class:`VerifyResult`; executors (:mod:`akg_rag.verify.executor`) run many in parallel and
:mod:`akg_rag.verify.bench` benchmarks a whole directory. Importing this package imports no torch.
"""

from akg_rag.verify.options import VerifyOptions
from akg_rag.verify.result import STATUSES, Timings, VerifyResult
from akg_rag.verify.runner import verify

__all__ = ["STATUSES", "Timings", "VerifyOptions", "VerifyResult", "verify"]
