import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x.softmax(-1)
def get_inputs(): return [torch.randn(10, 9)[3:8, 2:]]
def get_init_inputs(): return []
