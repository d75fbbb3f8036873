import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.roll(x, shifts=3, dims=1) + x.repeat(1, 1)[:, :].expand(2, -1, -1).mean(0)
def get_inputs(): return [torch.randn(4, 13)]
def get_init_inputs(): return []
