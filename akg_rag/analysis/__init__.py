"""Deterministic task analysis: what a KernelBench task computes, on which shapes, at what cost.

``analyze_task(path)`` loads the task, runs it on meta tensors under a dispatch recorder (nothing is
materialised, so a 4096 x 393216 input costs no memory), and derives the operator name, op types,
the canonical computation text embedded for retrieval, tensor specs, FLOPs and minimum bytes.
"""

from akg_rag.analysis.analyze import analyze_task
from akg_rag.analysis.record import TaskAnalysis, TensorSpec

__all__ = ["analyze_task", "TaskAnalysis", "TensorSpec"]
