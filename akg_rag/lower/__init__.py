"""Lowering: PyTorch tasks to generated Triton and C++ kernels through the Unified Sketch.

Layer 1 (torch and triton only); see docs/lowering.md. Nothing here imports on package import.
"""
