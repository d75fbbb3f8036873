import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, c):
        return torch.baddbmm(c, a, b, beta=0.5, alpha=2.0)
def get_inputs(): return [torch.randn(3, 5, 7), torch.randn(3, 7, 6), torch.randn(3, 5, 6)]
def get_init_inputs(): return []
