import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.maximum(x, torch.tensor(0.0))


def get_inputs():
    return [torch.randn(16, 16384)]


def get_init_inputs():
    return []
