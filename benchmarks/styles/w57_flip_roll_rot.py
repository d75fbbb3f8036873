import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.roll(x, shifts=(-2, 3), dims=(0, 2)), torch.flip(x, dims=(1, 2)), torch.rot90(x, 1, (1, 2)), torch.roll(x, -7), x.flip(-1).cumsum(-1).flip(-1)
def get_inputs(): return [torch.randn(3, 4, 5)]
def get_init_inputs(): return []
