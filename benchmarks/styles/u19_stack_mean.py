import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, c):
        return torch.stack([a, b, c], dim=-1).median(dim=-1).values + torch.stack((a, b)).prod(0)
def get_inputs(): return [torch.randn(4, 6), torch.randn(4, 6), torch.randn(4, 6)]
def get_init_inputs(): return []
