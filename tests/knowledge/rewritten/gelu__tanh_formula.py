"""GELU by its tanh approximation, written out: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, activations: torch.Tensor) -> torch.Tensor:
        inner = math.sqrt(2.0 / math.pi) * (activations + 0.044715 * torch.pow(activations, 3))
        return 0.5 * activations * (1.0 + torch.tanh(inner))


def get_inputs():
    return [torch.randn(32, 128, 1024)]


def get_init_inputs():
    return []
