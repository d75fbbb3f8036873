import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x.argmax(dim=-1) * 2 + 1
def get_inputs(): return [torch.randn(5, 3, 8)]
def get_init_inputs(): return []
