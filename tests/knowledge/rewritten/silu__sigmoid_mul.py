"""Swish on a feature map: x * sigmoid(x)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, fmap: torch.Tensor) -> torch.Tensor:
        return fmap * torch.sigmoid(fmap)


def get_inputs():
    return [torch.randn(8, 64, 32, 32)]


def get_init_inputs():
    return []
