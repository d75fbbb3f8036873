import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b):
        # get_inputs hands the same tensor twice
        return a * b + a, (a - b).abs().sum(), torch.maximum(a, b.t().t())
def get_inputs():
    x = torch.randn(4, 7)
    return [x, x]
def get_init_inputs(): return []
