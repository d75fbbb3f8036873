import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.conv(x)
        x = x + self.bias
        return torch.relu(x)


def get_inputs():
    return [torch.randn(128, 3, 32, 32).cuda()]


def get_init_inputs():
    return [3, 16, 3, (16, 1, 1)]
