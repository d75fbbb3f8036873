"""Example task: softmax over the last dim of a (128, 4096) float32 tensor.

A KernelBench-format task (``Model``, ``get_inputs``, ``get_init_inputs``) for the README demo:

    akg-rag generate examples/softmax_task.py --dsl cpp --backend cpu

Its computation matches the softmax seed kernels of the knowledge base while its shapes do not, so
the deterministic coder adapts a retrieved kernel and the verifier checks it at these shapes.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    """y = softmax(x, dim=1): each row of x exponentiated and normalised to sum to 1."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size, dim = 128, 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
