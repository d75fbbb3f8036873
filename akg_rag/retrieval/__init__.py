"""Three-stage kernel retrieval (semantic, hard filters, shape matching) and document retrieval.

Import the pieces from their modules; the names below are re-exported for convenience.
"""

from akg_rag.retrieval.filters import KernelFilter
from akg_rag.retrieval.pipeline import Retriever
from akg_rag.retrieval.results import DocHit, KernelHit, Query, RetrievalResult, StageReport

__all__ = ["DocHit", "KernelFilter", "KernelHit", "Query", "RetrievalResult", "Retriever", "StageReport"]
