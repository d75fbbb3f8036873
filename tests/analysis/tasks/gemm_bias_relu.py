import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.gemm(x))


def get_inputs():
    return [torch.randn(128, 1024, device="cuda")]


def get_init_inputs():
    return [1024, 512]
