import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, groups):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.gn = nn.GroupNorm(groups, channels)

    def forward(self, x):
        return self.gn(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(8, 64, 64, 64)]


def get_init_inputs():
    return [64, 8]
