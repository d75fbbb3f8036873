import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.glu(x, dim=-1) + a * torch.sigmoid(b)
def get_inputs(): return [torch.randn(6, 3, 20)]
def get_init_inputs(): return []
