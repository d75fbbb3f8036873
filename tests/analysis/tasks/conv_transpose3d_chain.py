import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1)
        self.bias = nn.Parameter(torch.randn(64, 1, 1, 1))
    def forward(self, x):
        x = self.c(x)
        x = torch.tanh(x) * 2.0 + self.bias
        return torch.sum(x, dim=(2, 3, 4))

def get_inputs():
    return [torch.randn(16, 32, 16, 32, 32)]

def get_init_inputs():
    return []
