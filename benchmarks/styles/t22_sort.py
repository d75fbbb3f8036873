import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=-1).values[:, :4] * 2
def get_inputs(): return [torch.randn(3, 10)]
def get_init_inputs(): return []
