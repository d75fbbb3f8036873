import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1
def get_inputs(): return [torch.randn(4, 5)]
def get_init_inputs(): return []
