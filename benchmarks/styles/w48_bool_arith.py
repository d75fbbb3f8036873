import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, x):
        # bool + bool stays bool (logical or), bool * bool is and; sums of bools count
        return a + b, a * b, (a + b).sum(-1), (a * 2 + b).to(torch.float32), torch.where(a, x, -x).sum(0), a.float().mean(), (~a).int().cumsum(1)
def get_inputs():
    return [torch.rand(5, 7) > 0.5, torch.rand(5, 7) > 0.3, torch.randn(5, 7)]
def get_init_inputs(): return []
