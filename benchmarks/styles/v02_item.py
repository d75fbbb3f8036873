import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        s = x.abs().max().item()
        return x / (s + 1.0)
def get_inputs(): return [torch.randn(4, 5)]
def get_init_inputs(): return []
