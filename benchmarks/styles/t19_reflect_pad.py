import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def forward(self, x):
        return F.pad(x, (2, 1, 1, 2), mode="reflect").sum(dim=-1)
def get_inputs(): return [torch.randn(2, 3, 6, 7)]
def get_init_inputs(): return []
