import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(32, 1024)]


def get_inputs_dyn_list():
    return [[torch.randn(32, 1024)], [torch.randn(7, 1024)], [torch.randn(513, 1024)]]


def get_init_inputs():
    return []
