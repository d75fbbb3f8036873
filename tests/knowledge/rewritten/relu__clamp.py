"""Rectifier on a 3-D tensor, written as a clamp at zero."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, signal: torch.Tensor) -> torch.Tensor:
        return torch.clamp(signal, min=0.0)


def get_inputs():
    return [torch.randn(32, 64, 1024)]


def get_init_inputs():
    return []
