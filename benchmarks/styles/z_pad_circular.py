import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.pad(x, (1, 2, 1, 1), mode='circular') * 2
def get_inputs(): return [torch.randn(2, 3, 7, 6)]
def get_init_inputs(): return []
