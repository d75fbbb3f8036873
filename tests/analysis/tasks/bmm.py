import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, A, B):
        return torch.bmm(A, B)


def get_inputs():
    return [torch.randn(128, 128, 256), torch.randn(128, 256, 512)]


def get_init_inputs():
    return []
