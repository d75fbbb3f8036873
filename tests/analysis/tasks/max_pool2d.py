import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size, stride, padding, dilation):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(16, 32, 128, 128)]


def get_init_inputs():
    return [2, 2, 1, 3]
